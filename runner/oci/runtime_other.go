//go:build !linux

package oci

import "os/exec"

// HybridCgroups is a Linux matter.
func HybridCgroups() bool { return false }

func (b *Backend) command(args ...string) *exec.Cmd {
	return exec.Command(b.path, append([]string{"--root", b.runtimeState}, args...)...)
}

func (b *Backend) start(cmd *exec.Cmd) error { return cmd.Start() }
