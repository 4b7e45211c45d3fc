package landlock

import "github.com/golem-box/golem-box/runner"

func init() {
	runner.Register(func(s runner.Settings) runner.Backend {
		var opts []Option
		if s.StateDir != "" {
			opts = append(opts, WithStateDir(s.StateDir))
		}
		return New(opts...)
	}, Name)
}
