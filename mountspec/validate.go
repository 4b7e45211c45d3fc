package mountspec

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// check is one small validation rule over a normalised sandbox.
type check func(s *Sandbox, o *origin) []*ConfigError

// checks run in order after paths are normalised; each names its field.
var checks = []check{
	checkDuplicateTargets,
	checkDuplicateNames,
	checkSensitiveSources,
	checkBackend,
	checkTrust,
	checkApproval,
	checkNetwork,
	checkLimits,
	checkFiles,
}

func mountField(s *Sandbox, i int) string {
	if f := s.Mounts[i].from; f != "" {
		return strings.TrimSuffix(f, ".path")
	}
	return fmt.Sprintf("sandbox.mounts[%d]", i)
}

// checkTarget requires an absolute, normalised target other than "/".
func checkTarget(t string, o *origin, field string) *ConfigError {
	switch {
	case t == "":
		return o.err(field, "is empty", `give the absolute path the source appears at, such as "/data"`)
	case strings.IndexByte(t, 0) >= 0:
		return o.err(field, "contains a NUL byte", "write a plain path")
	case len(t) > MaxPathBytes:
		return o.err(field, fmt.Sprintf("is %d bytes long, the limit is %d", len(t), MaxPathBytes), "use a shorter path")
	case !strings.HasPrefix(t, "/"):
		return o.err(field, fmt.Sprintf("must be absolute, got %q", t), fmt.Sprintf("write %q", path.Clean("/"+t)))
	case slices.Contains(strings.Split(t, "/"), ".."):
		return o.err(field, fmt.Sprintf("must not contain '..', got %q", t), "write the path it means without '..'")
	case t == "/":
		return o.err(field, `cannot be "/"`, "set sandbox.root (or --root) to choose what is mounted at /")
	case path.Clean(t) != t:
		return o.err(field, fmt.Sprintf("must be normalised, got %q", t), fmt.Sprintf("write %q", path.Clean(t)))
	}
	for _, c := range strings.Split(t[1:], "/") {
		if len(c) > MaxComponentBytes {
			return o.err(field, fmt.Sprintf("has a component longer than %d bytes", MaxComponentBytes), "use a shorter name")
		}
	}
	return nil
}

func checkDuplicateTargets(s *Sandbox, o *origin) []*ConfigError {
	var errs []*ConfigError
	seen := map[string]int{}
	for i, m := range s.Mounts {
		if j, ok := seen[m.Target]; ok {
			errs = append(errs, o.err(mountField(s, i)+".target",
				fmt.Sprintf("%s is already the target of %s", m.Target, mountField(s, j)),
				"give each mount its own target, or remove one of them"))
			continue
		}
		seen[m.Target] = i
	}
	return errs
}

func checkDuplicateNames(s *Sandbox, o *origin) []*ConfigError {
	var errs []*ConfigError
	seen := map[string]int{}
	for i, m := range s.Mounts {
		if m.Name == "" {
			continue
		}
		if j, ok := seen[m.Name]; ok {
			errs = append(errs, o.err(mountField(s, i)+".name",
				fmt.Sprintf("name %q is already used by %s", m.Name, mountField(s, j)), "give each mount its own name"))
			continue
		}
		seen[m.Name] = i
	}
	return errs
}

// sensitive host paths: mounting one of them, or a directory that contains
// one of the runtime sockets, gives the sandbox the host.
var (
	sensitiveTrees = []string{"/proc", "/sys", "/dev", "/boot"}
	runtimeSockets = []string{
		"/var/run/docker.sock", "/run/docker.sock",
		"/run/containerd/containerd.sock", "/var/run/containerd/containerd.sock",
		"/run/docker/containerd/containerd.sock", "/run/podman/podman.sock",
	}
)

// SensitiveReason says why mounting host directory p would hand over the host,
// or "" when it would not. Symbolic links in p are resolved first.
func SensitiveReason(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	if p == "/" {
		return "it is the host's root directory"
	}
	for _, t := range sensitiveTrees {
		if p == t || strings.HasPrefix(p, t+"/") {
			return fmt.Sprintf("it is under %s, which exposes the host kernel and devices", t)
		}
	}
	for _, sock := range runtimeSockets {
		if p == sock || strings.HasPrefix(sock, p+"/") {
			if _, err := os.Lstat(sock); err == nil || p == sock {
				return fmt.Sprintf("it contains %s, which controls the host's containers", sock)
			}
		}
	}
	return ""
}

func checkSensitiveSources(s *Sandbox, o *origin) []*ConfigError {
	if s.DangerousAllowSensitiveSources {
		return nil
	}
	const fix = "mount a narrower directory, or set sandbox.dangerous_allow_sensitive_sources: true if you really mean it"
	var errs []*ConfigError
	if s.Root != "" {
		if why := SensitiveReason(s.Root); why != "" {
			errs = append(errs, o.err("sandbox.root", fmt.Sprintf("refusing %s: %s", s.Root, why), fix))
		}
	}
	for i, m := range s.Mounts {
		if m.Source == "" {
			continue
		}
		if why := SensitiveReason(m.Source); why != "" {
			errs = append(errs, o.err(mountField(s, i)+".source", fmt.Sprintf("refusing %s: %s", m.Source, why), fix))
		}
	}
	return errs
}

func checkBackend(s *Sandbox, o *origin) []*ConfigError {
	if s.Backend == "" || slices.Contains(Backends, s.Backend) {
		return nil
	}
	names := make([]string, len(Backends))
	for i, b := range Backends {
		names[i] = string(b)
	}
	return []*ConfigError{o.err("sandbox.backend", fmt.Sprintf("unknown backend %q", s.Backend), "use one of: "+strings.Join(names, ", "))}
}

func checkTrust(s *Sandbox, o *origin) []*ConfigError {
	var errs []*ConfigError
	for i, m := range s.Mounts {
		if m.Trust != "" && m.Trust != Trusted && m.Trust != Untrusted {
			errs = append(errs, o.err(mountField(s, i)+".trust", fmt.Sprintf("unknown trust %q", m.Trust),
				`write "untrusted" for downloads and documents from others, or "trusted"`))
		}
	}
	return errs
}

// domainRe is compiled on first use: every golem-box start pays for
// package-level regexps, and most never validate a domain.
var domainRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
})

func checkNetwork(s *Sandbox, o *origin) []*ConfigError {
	var errs []*ConfigError
	for i, d := range s.Network.Allow {
		if len(d) > 253 || !domainRe().MatchString(d) {
			errs = append(errs, o.err(fmt.Sprintf("sandbox.network.allow[%d]", i),
				fmt.Sprintf("%q is not a domain name", d), `write a lower-case host name such as "proxy.golang.org" or "*.example.com"`))
		}
	}
	return errs
}

func checkLimits(s *Sandbox, o *origin) []*ConfigError {
	var errs []*ConfigError
	l := s.Limits
	if l.PIDs < 0 {
		errs = append(errs, o.err("sandbox.limits.pids", fmt.Sprintf("must not be negative, got %d", l.PIDs), "write a positive number of processes"))
	}
	if l.CPUs < 0 {
		errs = append(errs, o.err("sandbox.limits.cpus", fmt.Sprintf("must not be negative, got %g", l.CPUs), "write a number of CPUs such as 1 or 0.5"))
	}
	if l.Memory != 0 && l.Memory < 6<<20 {
		errs = append(errs, o.err("sandbox.limits.memory", fmt.Sprintf("%d bytes is too little to start a process", l.Memory), "write at least 6m, as Docker requires"))
	}
	return errs
}

func checkApproval(s *Sandbox, o *origin) []*ConfigError {
	var errs []*ConfigError
	one := func(field string, m ApprovalMode) {
		switch m {
		case "", ApprovalPreApproved, ApprovalAsk, ApprovalBlocked:
			return
		}
		errs = append(errs, o.err(field, fmt.Sprintf("unknown approval %q", m),
			`write "preApproved" (no prompt), "ask" (the default) or "blocked"`))
	}
	one("sandbox.approval.write", s.Approval.Write)
	one("sandbox.approval.delete", s.Approval.Delete)
	for i, m := range s.Mounts {
		one(mountField(s, i)+".approval.write", m.Approval.Write)
		one(mountField(s, i)+".approval.delete", m.Approval.Delete)
	}
	return errs
}

func checkFiles(s *Sandbox, o *origin) []*ConfigError {
	var errs []*ConfigError
	suffixes := func(field string, l []string) {
		for i, suf := range l {
			if !strings.HasPrefix(suf, ".") || len(suf) < 2 || strings.ContainsAny(suf, "/\x00") {
				errs = append(errs, o.err(fmt.Sprintf("%s[%d]", field, i),
					fmt.Sprintf("%q is not a file suffix", suf), fmt.Sprintf("write it with a leading dot, such as %q", "."+strings.Trim(suf, "./"))))
			}
		}
	}
	suffixes("sandbox.files.suffixes", s.Files.Suffixes)
	for i, m := range s.Mounts {
		suffixes(mountField(s, i)+".suffixes", m.Suffixes)
	}
	return errs
}

// Shadow is a path of a lower layer hidden by a mount (seed 000, "Mount
// Shadowing"): allowed, as in Docker, and reported by `golem-box check`.
type Shadow struct {
	// Target is the mount that hides something.
	Target string `json:"target"`
	// Hidden is the host path that would be visible there without it.
	Hidden string `json:"hidden"`
	// By is the mount the hidden path belongs to ("/" for the root).
	By string `json:"by"`
}

// Shadows lists the existing host paths that the mounts hide.
func (s *Sandbox) Shadows() []Shadow {
	var out []Shadow
	for i, m := range s.Mounts {
		lower := *s
		lower.Mounts = slices.Delete(slices.Clone(s.Mounts), i, i+1)
		r, err := lower.Resolve(m.Target)
		if err != nil {
			continue
		}
		if _, err := os.Lstat(r.Host); err == nil {
			out = append(out, Shadow{Target: m.Target, Hidden: r.Host, By: r.Target})
		}
	}
	return out
}
