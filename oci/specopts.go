package oci

import (
	"context"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// SpecOpt changes a spec; Compile is a list of them, as containerd builds
// its specs.
type SpecOpt func(ctx context.Context, s *specs.Spec) error

// Compose applies opts in order and stops at the first error.
func Compose(opts ...SpecOpt) SpecOpt {
	return func(ctx context.Context, s *specs.Spec) error {
		for _, o := range opts {
			if err := o(ctx, s); err != nil {
				return err
			}
		}
		return nil
	}
}

func ensureProcess(s *specs.Spec) *specs.Process {
	if s.Process == nil {
		s.Process = &specs.Process{}
	}
	return s.Process
}

func ensureLinux(s *specs.Spec) *specs.Linux {
	if s.Linux == nil {
		s.Linux = &specs.Linux{}
	}
	return s.Linux
}

func ensureResources(s *specs.Spec) *specs.LinuxResources {
	l := ensureLinux(s)
	if l.Resources == nil {
		l.Resources = &specs.LinuxResources{}
	}
	return l.Resources
}
