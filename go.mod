module github.com/golem-box/golem-box

go 1.26

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.6
)
