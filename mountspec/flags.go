package mountspec

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ParseMountFlag parses Docker's --mount syntax verbatim:
// type=bind,source=/a,target=/b,readonly (also src, dst, destination, ro,
// readonly=true|false). Only bind mounts exist in golem-box; options that
// would change what a bind mount means are refused with the reason, never
// ignored. A relative source is taken from the working directory.
func ParseMountFlag(value string) (Mount, error) {
	flag := "--mount " + strconv.Quote(value)
	bad := func(msg, fix string) (Mount, error) {
		return Mount{}, &ConfigError{File: flag, Msg: msg, Fix: fix}
	}
	r := csv.NewReader(strings.NewReader(value))
	r.LazyQuotes = true
	fields, err := r.Read()
	if err != nil || value == "" {
		return bad("cannot split it into key=value fields", "write type=bind,source=DIR,target=/PATH[,readonly]")
	}
	m := Mount{from: flag}
	typ := ""
	seen := map[string]bool{}
	for _, f := range fields {
		key, val, hasVal := strings.Cut(strings.TrimSpace(f), "=")
		key = strings.ToLower(key)
		canon := key
		switch key {
		case "src":
			canon = "source"
		case "dst", "destination":
			canon = "target"
		case "ro":
			canon = "readonly"
		}
		if seen[canon] {
			return bad(fmt.Sprintf("%s is given twice", canon), "give each key once")
		}
		seen[canon] = true
		switch canon {
		case "type":
			typ = val
		case "source":
			m.Source = val
		case "target":
			m.Target = val
		case "readonly":
			if !hasVal {
				m.ReadOnly = true
				break
			}
			b, err := strconv.ParseBool(val)
			if err != nil {
				return bad(fmt.Sprintf("%s=%s is not a boolean", key, val), "write readonly, readonly=true or readonly=false")
			}
			m.ReadOnly = b
		case "name":
			m.Name = val
		case "consistency":
			// A macOS file-sharing hint; Docker ignores it on Linux and so do we.
		case "bind-propagation":
			return bad("bind-propagation is not supported",
				"remove it: golem-box mounts are always private (rprivate), so that nothing mounted inside the sandbox reaches the host and nothing mounted on the host later appears inside")
		case "bind-nonrecursive", "bind-recursive":
			return bad(key+" is not supported",
				"remove it: golem-box binds recursively and makes read-only mounts read-only recursively, or refuses to run")
		default:
			if strings.HasPrefix(key, "volume-") || strings.HasPrefix(key, "tmpfs-") || strings.HasPrefix(key, "image-") {
				return bad(fmt.Sprintf("%s only applies to other mount types", key), "golem-box mounts are bind mounts; remove it")
			}
			return bad(fmt.Sprintf("unknown key %q", key), "use type, source (src), target (dst, destination), readonly (ro) or name")
		}
	}
	switch typ {
	case "", "bind":
		// A missing type means bind: in Docker it would mean a volume, and a
		// volume with a path as its source is an error there anyway.
	case "volume", "tmpfs", "npipe", "cluster", "image":
		return bad(fmt.Sprintf("type=%s is not supported", typ), "use type=bind with a host directory as source")
	default:
		return bad(fmt.Sprintf("unknown type %q", typ), "use type=bind")
	}
	if m.Source == "" {
		return bad("source is missing", "add source=DIR (the host directory)")
	}
	if m.Target == "" {
		return bad("target is missing", "add target=/PATH (where it appears in the sandbox)")
	}
	m.Source = absFromWD(m.Source)
	return m, nil
}

// ParseVolumeFlag parses Docker's -v syntax: SOURCE:TARGET[:OPTIONS] where
// OPTIONS is a comma-separated list of ro or rw. Named volumes, anonymous
// volumes and options that change mount semantics are refused.
func ParseVolumeFlag(value string) (Mount, error) {
	flag := "-v " + strconv.Quote(value)
	bad := func(msg, fix string) (Mount, error) {
		return Mount{}, &ConfigError{File: flag, Msg: msg, Fix: fix}
	}
	parts := strings.Split(value, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return bad("expected SOURCE:TARGET[:ro]", "write -v /host/dir:/target or -v /host/dir:/target:ro")
	}
	m := Mount{Source: parts[0], Target: parts[1], from: flag}
	if m.Source == "" || m.Target == "" {
		return bad("source and target must both be given", "write -v /host/dir:/target")
	}
	if !strings.HasPrefix(m.Source, "/") && !strings.HasPrefix(m.Source, ".") && !strings.HasPrefix(m.Source, "~") {
		return bad(fmt.Sprintf("%q looks like a named volume", m.Source), "golem-box mounts host directories: write an absolute path or one starting with ./")
	}
	if len(parts) == 3 {
		mode := ""
		for _, opt := range strings.Split(parts[2], ",") {
			switch opt {
			case "ro", "rw":
				if mode != "" && mode != opt {
					return bad("both ro and rw are given", "choose one")
				}
				mode = opt
			case "z", "Z":
				return bad(fmt.Sprintf("the SELinux option %q is not supported", opt), "remove it: golem-box never relabels host files")
			case "shared", "rshared", "slave", "rslave", "private", "rprivate":
				return bad(fmt.Sprintf("propagation %q is not supported", opt), "remove it: golem-box mounts are always private")
			case "nocopy":
				return bad("nocopy only applies to volumes", "remove it")
			case "":
				return bad("empty option", "write ro or rw")
			default:
				return bad(fmt.Sprintf("unknown option %q", opt), "use ro or rw")
			}
		}
		m.ReadOnly = mode == "ro"
	}
	m.Source = absFromWD(m.Source)
	return m, nil
}

// absFromWD anchors a relative flag path at the working directory. The shell
// has already expanded variables and ~ in most cases; "~/x" inside a
// comma-separated --mount value it does not, so do that here.
func absFromWD(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = home + p[1:]
		}
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
