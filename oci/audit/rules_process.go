package audit

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The process's surroundings: working directory, hooks, published ports,
// environment and restart policy.

var (
	procFD     = regexp.MustCompile(`^/proc/(self|thread-self|[0-9]+)(/task/[0-9]+)?/fd(/|$)`)
	secretName = regexp.MustCompile(`(?i)(PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL)`)
)

func init() {
	register(
		&Rule{ID: "GB801", Name: "cwd-proc-fd", Severity: High, Title: "Working directory under /proc/*/fd",
			Field: "process.cwd; Config.WorkingDir",
			Why:   "A working directory in /proc/self/fd reaches a file descriptor the runtime leaked from the host: with runc before 1.1.12 the process starts in the host's filesystem (Leaky Vessels).",
			Fix:   "Use a normal directory as the working directory; upgrade runc to 1.1.12 or later.",
			Refs:  []string{"CVE-2024-21626"},
			check: func(s *Subject) []Hit {
				if !procFD.MatchString(s.Cwd) {
					return nil
				}
				return hit(s.field(fieldCwd), "the working directory is %s", s.Cwd)
			}},
		&Rule{ID: "GB802", Name: "hooks", Severity: High, Title: "Runtime hooks",
			Field: "hooks",
			Why:   "Hooks (except startContainer) run on the host, as the runtime's user (root), outside every sandbox setting of the spec; a spec from elsewhere with hooks runs its code on the host.",
			Fix:   "Remove the hooks, or review each program they run as you would host configuration.",
			check: func(s *Subject) []Hit {
				var phases []string
				for p, n := range s.Hooks {
					phases = append(phases, fmt.Sprintf("%s (%d)", p, n))
				}
				if len(phases) == 0 {
					return nil
				}
				slices.Sort(phases)
				return hit(s.field(fieldHooks), "hooks run at %s", quoteList(phases))
			}},
		&Rule{ID: "GB803", Name: "ports-all-interfaces", Severity: Medium, Title: "Ports published on all interfaces",
			Field: "HostConfig.PortBindings[].HostIp, PublishAllPorts",
			Why:   "A port bound to 0.0.0.0 is reachable from every network the host is on, and Docker's iptables rules bypass the host firewall.",
			Fix:   "Bind to one address (-p 127.0.0.1:8080:80).",
			Refs:  []string{"CIS Docker 5.13"},
			check: func(s *Subject) []Hit {
				var out []Hit
				if s.PublishAllPorts {
					out = append(out, Hit{Field: "HostConfig.PublishAllPorts", Message: "every exposed port is published on all interfaces (-P)"})
				}
				for _, p := range s.Ports {
					if p.HostIP == "" || p.HostIP == "0.0.0.0" || p.HostIP == "::" {
						out = append(out, Hit{Field: p.Field, Message: fmt.Sprintf("%s is published on all interfaces (host port %s)", p.ContainerPort, p.HostPort)})
					}
				}
				return out
			}},
		&Rule{ID: "GB804", Name: "privileged-host-port", Severity: Low, Title: "Privileged host port published",
			Field: "HostConfig.PortBindings[].HostPort",
			Why:   "Ports below 1024 are the host's well-known services; publishing a container there shadows or impersonates them.",
			Fix:   "Publish on a port from 1024 up and put a proxy in front if needed.",
			Refs:  []string{"CIS Docker 5.7"},
			check: func(s *Subject) []Hit {
				var out []Hit
				for _, p := range s.Ports {
					if n, err := strconv.Atoi(p.HostPort); err == nil && n > 0 && n < 1024 {
						out = append(out, Hit{Field: p.Field, Message: fmt.Sprintf("%s is published on host port %d", p.ContainerPort, n)})
					}
				}
				return out
			}},
		&Rule{ID: "GB805", Name: "secret-in-env", Severity: Medium, Title: "Secret in the environment",
			Field: "process.env; Config.Env",
			Why:   "Environment variables are readable in the spec, in docker inspect, in /proc/*/environ and by every child process; they end up in logs and crash reports.",
			Fix:   "Pass secrets as read-only files (a secrets mount) or through a secret store, not as environment variables.",
			check: func(s *Subject) []Hit {
				var out []Hit
				for i, e := range s.Env {
					k, v, _ := strings.Cut(e, "=")
					if v != "" && secretName.MatchString(k) {
						// The value itself is never repeated.
						out = append(out, Hit{Field: fmt.Sprintf("%s[%d]", s.field(fieldEnv), i), Message: k + " holds what looks like a secret"})
					}
				}
				return out
			}},
		&Rule{ID: "GB806", Name: "restart-unbounded", Severity: Low, Title: "Restart policy without a bound",
			Field: "HostConfig.RestartPolicy",
			Why:   "A container that fails and restarts forever keeps an attacker's retries going and can load the host.",
			Fix:   "Use on-failure with at most 5 retries (--restart on-failure:5).",
			Refs:  []string{"CIS Docker 5.14"},
			check: func(s *Subject) []Hit {
				r := s.Restart
				if r.Name != "always" && r.Name != "unless-stopped" && !(r.Name == "on-failure" && (r.MaxRetries == 0 || r.MaxRetries > 5)) {
					return nil
				}
				return hit(s.field(fieldRestart), "restart policy %s with %d maximum retries", r.Name, r.MaxRetries)
			}},
	)
}
