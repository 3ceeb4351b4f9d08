{{- define "spawnpoint.labels" -}}
app.kubernetes.io/name: spawnpoint
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}
