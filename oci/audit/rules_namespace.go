package audit

import "fmt"

// Namespaces: which of the host's the container shares, and which it joins.

func init() {
	register(
		nsRule("GB201", "host-network", "network", High, "The container sees and binds the host's interfaces, reaches services on the host's loopback (the Docker socket over TCP, cloud metadata, databases bound to 127.0.0.1) and sniffs its traffic.", "Give the container its own network namespace (remove --network host; list a network namespace in linux.namespaces).", "CIS Docker 5.9"),
		nsRule("GB202", "host-pid", "pid", High, "The container sees every host process, can signal those of its uid and read their /proc entries (environment, open files, roots).", "Remove --pid host; list a pid namespace in linux.namespaces.", "CIS Docker 5.15"),
		nsRule("GB203", "host-ipc", "ipc", Medium, "Shared memory and message queues of host processes become readable and writable.", "Remove --ipc host; list an ipc namespace in linux.namespaces.", "CIS Docker 5.16"),
		nsRule("GB204", "host-uts", "uts", Low, "The container can change the host's hostname and domain name.", "Remove --uts host; list a uts namespace in linux.namespaces.", "CIS Docker 5.20"),
		nsRule("GB205", "no-user-namespace", "user", Low, "Without a user namespace, ids in the container are host ids: container root is host root, and a file owned by uid 1000 in the container is owned by host uid 1000.", "Use a user namespace (linux.namespaces user with uidMappings, or a daemon with --userns-remap; remove --userns host).", "CIS Docker 2.8", "CIS Docker 5.30"),
		nsRule("GB206", "host-cgroup-namespace", "cgroup", Low, "The container sees the host's cgroup hierarchy paths in /proc/self/cgroup and mountinfo, which tells it where it is on the host.", "Use a private cgroup namespace (--cgroupns private; list a cgroup namespace in linux.namespaces)."),
		nsRule("GB207", "host-mount-namespace", "mount", Critical, "Without a mount namespace every mount the container makes happens on the host and the root filesystem cannot be isolated.", "List a mount namespace in linux.namespaces.", "OCI runtime-spec config-linux"),
		&Rule{ID: "GB208", Name: "joined-namespace", Severity: Medium, Title: "Joins another process's namespace",
			Field: "linux.namespaces[].path; HostConfig.NetworkMode, PidMode, IpcMode (container:ID)",
			Why:   "Joining another container's or process's namespace shares its network, processes or memory with it: isolation between the two is gone, and a path into a host process's namespace is the host's.",
			Fix:   "Give the container namespaces of its own, unless the two are one workload by design.",
			Refs:  []string{"CIS Docker 5.9", "CIS Docker 5.15"},
			check: checkJoined},
	)
}

func nsRule(id, name, ns string, sev Severity, why, fix string, refs ...string) *Rule {
	title := "Host " + ns + " namespace"
	if ns == "user" {
		title = "No user namespace"
	}
	return &Rule{ID: id, Name: name, Severity: sev, Title: title,
		Field: fmt.Sprintf("linux.namespaces (%s); HostConfig.%s", ns, dockerNSField[ns]),
		Why:   why, Fix: fix, Refs: refs,
		check: func(s *Subject) []Hit {
			n, ok := s.Namespaces[ns]
			if !ok || n.Mode != NSHost {
				return nil
			}
			switch {
			case s.Format == FormatOCI:
				return hit(n.Field, "linux.namespaces has no %s namespace, so the host's is shared", ns)
			case n.Assumed:
				return hit(n.Field, "%s is not set: the daemon's default shares the host's %s namespace (unless the daemon is configured otherwise)", dockerNSField[ns], ns)
			}
			return hit(n.Field, "%s is host", dockerNSField[ns])
		}}
}

var dockerNSField = map[string]string{"network": "NetworkMode", "pid": "PidMode", "ipc": "IpcMode", "uts": "UTSMode",
	"user": "UsernsMode", "cgroup": "CgroupnsMode", "mount": "(always private)"}

func checkJoined(s *Subject) []Hit {
	var out []Hit
	for _, t := range []string{"network", "pid", "ipc", "uts", "user", "cgroup", "mount"} {
		if n := s.Namespaces[t]; n.Mode == NSJoin {
			out = append(out, Hit{Field: n.Field, Message: fmt.Sprintf("joins the %s namespace of %s", t, n.Path)})
		}
	}
	return out
}
