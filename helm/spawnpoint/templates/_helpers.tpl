{{- define "spawnpoint.labels" -}}
app.kubernetes.io/name: spawnpoint
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* Pods of one component: (dict "ctx" $ "component" "gateway"). */}}
{{- define "spawnpoint.selectorLabels" -}}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "spawnpoint.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "spawnpoint.kubernetesRuntime" -}}
{{- eq .Values.runtime "kubernetes" -}}
{{- end -}}

{{/* The gateway's in-cluster Service URL (no port when it is 80). */}}
{{- define "spawnpoint.gatewayUrl" -}}
{{- $port := int .Values.apps.gateway.service.port -}}
http://{{ .Release.Name }}-gateway.{{ .Release.Namespace }}.svc.cluster.local{{ if ne $port 80 }}:{{ $port }}{{ end }}
{{- end -}}

{{- define "spawnpoint.natsUrl" -}}
{{- if .Values.nats.enabled -}}
nats://{{ .Release.Name }}-nats.{{ .Release.Namespace }}.svc.cluster.local:4222
{{- else -}}
{{ required "natsUrl is required (or nats.enabled=true)" .Values.natsUrl }}
{{- end -}}
{{- end -}}

{{/* Secret and key DATABASE_URL comes from. */}}
{{- define "spawnpoint.databaseSecret" -}}
{{- if and .Values.database.existingSecret (not .Values.postgresql.enabled) -}}
{{ .Values.database.existingSecret }}
{{- else -}}
{{ .Release.Name }}-database
{{- end -}}
{{- end -}}
{{- define "spawnpoint.databaseSecretKey" -}}
{{- if and .Values.database.existingSecret (not .Values.postgresql.enabled) }}{{ .Values.database.existingSecretKey }}{{ else }}url{{ end -}}
{{- end -}}

{{/* Whether the services get EVENTSTORE_URL, and from where. */}}
{{- define "spawnpoint.eventStoreEnv" -}}
{{- if .Values.eventStore.existingSecret }}
- name: EVENTSTORE_URL
  valueFrom: { secretKeyRef: { name: {{ .Values.eventStore.existingSecret | quote }}, key: {{ .Values.eventStore.existingSecretKey | quote }} } }
{{- else if .Values.eventstoredb.enabled }}
- name: EVENTSTORE_URL
  value: {{ printf "esdb://%s-eventstoredb.%s.svc.cluster.local:2113?tls=false" .Release.Name .Release.Namespace | quote }}
{{- else if .Values.eventStoreUrl }}
- name: EVENTSTORE_URL
  value: {{ .Values.eventStoreUrl | quote }}
{{- end }}
{{- end -}}

{{/*
A value generated once and kept: the existing Secret's (lookup: empty under `helm template` and
--dry-run, where a fresh one is shown), else a new random one. (dict "ctx" $ "name" secret "key" key).
Base64 as stored in Secret.data.
*/}}
{{- define "spawnpoint.generated" -}}
{{- $existing := lookup "v1" "Secret" .ctx.Release.Namespace .name -}}
{{- $data := default dict (get $existing "data") -}}
{{- if hasKey $data .key -}}
{{ get $data .key }}
{{- else -}}
{{ randAlphaNum (default 48 .length | int) | b64enc }}
{{- end -}}
{{- end -}}

{{/*
The kubernetes runtime's config file (docs/kubernetes.md): kubernetes.config with each region's blanks
filled from the release (namespace) and gameServers (hosts, port range). A host left blank means the
address of the node each game pod runs on.
*/}}
{{- define "spawnpoint.kubernetesConfig" -}}
{{- $config := deepCopy .Values.kubernetes.config -}}
{{- $regions := dict -}}
{{- range $name, $given := $config.regions -}}
{{- $region := deepCopy (default dict $given) -}}
{{- if not $region.namespace }}{{ $_ := set $region "namespace" $.Release.Namespace }}{{ end -}}
{{- if not $region.tcpHost }}{{ $_ := set $region "tcpHost" $.Values.gameServers.tcpHost }}{{ end -}}
{{- if not $region.udpHost }}{{ $_ := set $region "udpHost" $.Values.gameServers.udpHost }}{{ end -}}
{{- if not $region.portRange }}{{ $_ := set $region "portRange" $.Values.gameServers.portRange }}{{ end -}}
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
{{- if not (and $region $region.context) -}}
{{- $namespaces = append $namespaces (default $.Release.Namespace (and $region $region.namespace)) -}}
{{- end -}}
{{- end -}}
{{- $namespaces | uniq | sortAlpha | join "," -}}
{{- end -}}

{{/* Whether a region of this cluster takes its hosts from the game pod's node (the runtime then lists nodes). */}}
{{- define "spawnpoint.nodeHosts" -}}
{{- $any := false -}}
{{- range $name, $region := .Values.kubernetes.config.regions -}}
{{- $r := default dict $region -}}
{{- if and (not $r.context) (or (not (or $r.tcpHost $.Values.gameServers.tcpHost)) (not (or $r.udpHost $.Values.gameServers.udpHost))) -}}
{{- $any = true -}}
{{- end -}}
{{- end -}}
{{- $any -}}
{{- end -}}

{{/*
OpenTelemetry export when tracing.endpoint is set (docs/operations.md, "Traces"): the endpoint, the
parent-based ratio sampler, headers from a Secret, and the pod as resource attributes ($(VAR) refers to
SPAWNPOINT_POD_NAME/NAMESPACE, set from the downward API before it in every app). (dict "ctx" $ "app" app).
*/}}
{{- define "spawnpoint.tracingEnv" -}}
{{- $t := .ctx.Values.tracing -}}
{{- if $t.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $t.endpoint | quote }}
- name: OTEL_TRACES_SAMPLER
  value: parentbased_traceidratio
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ $t.sampleRatio | toString | quote }}
{{- if $t.headers.existingSecret }}
- name: OTEL_EXPORTER_OTLP_HEADERS
  valueFrom: { secretKeyRef: { name: {{ $t.headers.existingSecret | quote }}, key: {{ $t.headers.existingSecretKey | quote }} } }
{{- end }}
{{- $attributes := list "service.instance.id=$(SPAWNPOINT_POD_NAME)" "k8s.pod.name=$(SPAWNPOINT_POD_NAME)" "k8s.namespace.name=$(SPAWNPOINT_POD_NAMESPACE)" (printf "k8s.deployment.name=%s-%s" .ctx.Release.Name .app) }}
{{- range $key, $value := $t.resourceAttributes }}{{ $attributes = append $attributes (printf "%s=%s" $key $value) }}{{ end }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ join "," $attributes | quote }}
{{- end }}
{{- end -}}

{{/* Replicas an app runs with at least (the gateway's HPA minimum when autoscaled). */}}
{{- define "spawnpoint.minReplicas" -}}
{{- if and (eq .app "gateway") (dig "autoscaling" "enabled" false .cfg) -}}
{{ .cfg.autoscaling.minReplicas }}
{{- else -}}
{{ .cfg.replicas }}
{{- end -}}
{{- end -}}
