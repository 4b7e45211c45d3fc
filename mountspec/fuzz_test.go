package mountspec

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the YAML loader: it must never panic,
// and whatever it accepts must be a normalised sandbox.
func FuzzParse(f *testing.F) {
	f.Add([]byte("sandbox:\n  root: .\n  mounts:\n    - {source: ., target: /x, readonly: true}\n"))
	f.Add([]byte("sandbox:\n  network: {allow: [a.example]}\n  limits: {memory: 1g, timeout: 1s}\n"))
	f.Add([]byte("sandbox:\n  zones:\n    cache: {path: ., mode: ro}\n"))
	f.Add([]byte("a: &a [*a, *a]\nb: &b [*a, *a]\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, dir+"/"+FileName)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("empty error message")
			}
			return
		}
		s := cfg.Sandbox
		for _, m := range s.Mounts {
			if !strings.HasPrefix(m.Source, "/") || !strings.HasPrefix(m.Target, "/") || m.Target == "/" {
				t.Fatalf("accepted a mount that is not normalised: %+v", m)
			}
		}
		if len(s.Zones) != 0 {
			t.Fatal("zones left after normalisation")
		}
	})
}

// fuzzFlag checks a flag parser: never panic, errors are configuration
// errors, and accepted mounts have a source and a target.
func fuzzFlag(f *testing.F, parse func(string) (Mount, error), seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		m, err := parse(v)
		if err != nil {
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("error is not a configuration error: %v", err)
			}
			return
		}
		if m.Source == "" || m.Target == "" {
			t.Fatalf("accepted %q with an empty source or target", v)
		}
	})
}

func FuzzParseMountFlag(f *testing.F) {
	fuzzFlag(f, ParseMountFlag, "type=bind,source=/a,target=/b,readonly", `"src=/a,b",dst=/c,ro=false`, "type=volume,src=x,dst=/y", ",,,=", `"`)
}

func FuzzParseVolumeFlag(f *testing.F) {
	fuzzFlag(f, ParseVolumeFlag, "/a:/b", "/a:/b:ro", "./x:/y:rw", "v:/b", ":::", "/a:/b:Z")
}

// FuzzResolve: whatever the path, the host path stays inside the mount
// that Resolve names.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"/src/a", "/../x", "/cache/../../y", "a/b/../../..", "/cache", "//cache//x/", "\x00"} {
		f.Add(s)
	}
	s := seedSandbox()
	f.Fuzz(func(t *testing.T, p string) {
		r, err := s.Resolve(p)
		if err != nil {
			return
		}
		if r.Host != r.Source && !strings.HasPrefix(r.Host, r.Source+"/") {
			t.Fatalf("Resolve(%q) = %q, outside its mount %q", p, r.Host, r.Source)
		}
		for _, c := range strings.Split(r.Host, "/") {
			if c == ".." {
				t.Fatalf("Resolve(%q) = %q contains ..", p, r.Host)
			}
		}
	})
}
