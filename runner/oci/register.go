package oci

import "github.com/golem-box/golem-box/runner"

func init() {
	runner.RegisterAlias(func(s runner.Settings) runner.Backend { return New(settings(s)...) }, "oci")
	for _, rt := range []string{"runc", "crun"} {
		runner.Register(func(s runner.Settings) runner.Backend {
			s.Runtime = rt
			return New(settings(s)...)
		}, "oci/"+rt, rt)
	}
}

func settings(s runner.Settings) []Option {
	var opts []Option
	if s.Runtime != "" {
		opts = append(opts, WithRuntime(s.Runtime))
	}
	if s.StateDir != "" {
		opts = append(opts, WithStateDir(s.StateDir))
	}
	return opts
}
