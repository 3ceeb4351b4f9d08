{{- define "spawnpoint.labels" -}}
app.kubernetes.io/name: spawnpoint
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{- define "spawnpoint.kubernetesRuntime" -}}
{{- eq .Values.runtime "kubernetes" -}}
{{- end -}}

{{/*
The kubernetes runtime's config file (docs/kubernetes.md): kubernetes.config with each region's blanks
filled from the release (namespace) and gameServers (hosts, port range). Fails the install when a region
would have no host to give clients.
*/}}
{{- define "spawnpoint.kubernetesConfig" -}}
{{- $config := deepCopy .Values.kubernetes.config -}}
{{- $regions := dict -}}
{{- range $name, $given := $config.regions -}}
{{- $region := deepCopy $given -}}
{{- if not $region.namespace }}{{ $_ := set $region "namespace" $.Release.Namespace }}{{ end -}}
{{- if not $region.tcpHost }}{{ $_ := set $region "tcpHost" $.Values.gameServers.tcpHost }}{{ end -}}
{{- if not $region.udpHost }}{{ $_ := set $region "udpHost" $.Values.gameServers.udpHost }}{{ end -}}
{{- if not $region.portRange }}{{ $_ := set $region "portRange" $.Values.gameServers.portRange }}{{ end -}}
{{- if or (not $region.tcpHost) (not $region.udpHost) -}}
{{- fail (printf "runtime=kubernetes: region %s needs tcpHost and udpHost (set gameServers.tcpHost/udpHost or kubernetes.config.regions.%s.tcpHost/udpHost)" $name $name) -}}
{{- end -}}
{{- $_ := set $regions $name $region -}}
{{- end -}}
{{- if not $regions }}{{ fail "runtime=kubernetes: kubernetes.config.regions needs at least one region" }}{{ end -}}
{{- $_ := set $config "regions" $regions -}}
{{- toYaml $config -}}
{{- end -}}

{{/* The namespaces of this cluster the runtime creates game pods in (regions with a context live elsewhere). */}}
{{- define "spawnpoint.gameNamespaces" -}}
{{- $namespaces := list -}}
{{- range $name, $region := .Values.kubernetes.config.regions -}}
{{- if not $region.context -}}
{{- $namespaces = append $namespaces (default $.Release.Namespace $region.namespace) -}}
{{- end -}}
{{- end -}}
{{- $namespaces | uniq | sortAlpha | join "," -}}
{{- end -}}
