module github.com/worksteal/worksteal

go 1.26.0

require (
	github.com/spf13/cobra v1.10.2
	golang.org/x/sync v0.25.0
)

require (
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
