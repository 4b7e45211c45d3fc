package seccomp

//go:generate go run ./internal/mktables
