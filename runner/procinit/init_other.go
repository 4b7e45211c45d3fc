//go:build !linux

package procinit

import (
	"errors"
	"os"
	"os/exec"
)

// FirstExtraFD is the first descriptor of Command's extra files.
const FirstExtraFD = 5

var errNotLinux = errors.New("the init helper exists only on Linux")

// Handle is a helper about to start or started.
type Handle struct{ Cmd *exec.Cmd }

// Command fails: the helper exists only on Linux.
func Command(*Spec, ...*os.File) (*Handle, error) { return nil, errNotLinux }

// Start fails.
func (h *Handle) Start() error { return errNotLinux }

// ABI fails: Landlock is Linux's.
func ABI() (int, error) { return 0, errNotLinux }
