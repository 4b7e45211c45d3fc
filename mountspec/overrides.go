package mountspec

import (
	"errors"
	"path/filepath"
)

// Overrides are what a command line adds to the project configuration, with
// Docker's flag names.
type Overrides struct {
	// ConfigFile replaces the search for golem-box.yaml (--config).
	ConfigFile string
	// Root replaces sandbox.root (--root), relative to the working directory.
	Root string
	// ReadOnly makes the root read-only (--readonly).
	ReadOnly bool
	// Mounts are --mount values; Volumes are -v values.
	Mounts  []string
	Volumes []string
}

// FromFlags builds the effective configuration for a command run in dir:
// the configuration file (given, or found from dir upwards), then the
// overrides. With no file found, the flags alone must describe a sandbox.
// It returns the configuration and the file it used ("" when none).
func FromFlags(dir string, o Overrides) (*Config, string, error) {
	file := o.ConfigFile
	if file == "" {
		f, err := Find(dir)
		switch {
		case err == nil:
			file = f
		case errors.Is(err, ErrNoConfig) && (o.Root != "" || len(o.Mounts)+len(o.Volumes) > 0):
		case errors.Is(err, ErrNoConfig):
			return nil, "", &ConfigError{Msg: err.Error(),
				Fix: "create " + FileName + " with a sandbox: section, or describe one with --root DIR and --mount / -v"}
		default:
			return nil, "", err
		}
	}
	cfg := &Config{Sandbox: Default()}
	if file != "" {
		c, err := Load(file)
		if err != nil {
			return nil, file, err
		}
		cfg = c
	}
	if o.Root == "" && len(o.Mounts)+len(o.Volumes) == 0 && !o.ReadOnly {
		return cfg, file, nil
	}
	s := &cfg.Sandbox
	if o.Root != "" {
		p, e := hostPath(o.Root, dir, nil, "--root")
		if e != nil {
			return nil, file, e
		}
		s.Root = p
	}
	s.ReadOnly = s.ReadOnly || o.ReadOnly
	var errs []error
	for _, v := range o.Mounts {
		m, err := ParseMountFlag(v)
		errs = append(errs, err)
		if err == nil {
			s.Mounts = append(s.Mounts, m)
		}
	}
	for _, v := range o.Volumes {
		m, err := ParseVolumeFlag(v)
		errs = append(errs, err)
		if err == nil {
			s.Mounts = append(s.Mounts, m)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, file, err
	}
	base := dir
	if file != "" {
		base = filepath.Dir(file)
	}
	// The file was valid on its own: what fails now comes from the flags,
	// and flag mounts name themselves.
	if err := s.normalize(base, nil); err != nil {
		return nil, file, err
	}
	if err := cfg.normalizeTop(base, &origin{file: file}); err != nil {
		return nil, file, err
	}
	return cfg, file, nil
}
