package audit

import (
	"slices"
	"strings"
)

// Security profiles: seccomp, AppArmor, SELinux and no_new_privs.

// dangerousSyscalls are refused by Docker's default profile unless the
// matching capability is granted; allowing them unconditionally opens the
// kernel interfaces most container escapes have used.
var dangerousSyscalls = []string{"mount", "umount", "umount2", "pivot_root", "unshare", "setns", "clone3",
	"fsopen", "fsmount", "fsconfig", "move_mount", "open_tree", "kexec_load", "kexec_file_load", "init_module",
	"finit_module", "delete_module", "open_by_handle_at", "bpf", "ptrace", "process_vm_readv", "process_vm_writev",
	"keyctl", "add_key", "request_key", "userfaultfd", "perf_event_open", "iopl", "ioperm", "swapon", "swapoff",
	"reboot", "acct", "quotactl", "lookup_dcookie", "syslog", "settimeofday", "clock_settime", "stime",
	"io_uring_setup", "io_uring_enter", "io_uring_register"}

func init() {
	register(
		&Rule{ID: "GB401", Name: "seccomp-disabled", Severity: High, Title: "No seccomp filter", Implied: true,
			Field: "linux.seccomp; HostConfig.SecurityOpt seccomp=unconfined",
			Why:   "Without seccomp the whole system call surface of the kernel is reachable; most kernel exploits used against containers (keyctl, userfaultfd, io_uring, unshare) are refused by the default profile.",
			Fix:   "Keep the engine's default profile (remove seccomp=unconfined) or give a profile with defaultAction SCMP_ACT_ERRNO.",
			Refs:  []string{"CIS Docker 5.21"},
			check: func(s *Subject) []Hit {
				if s.Seccomp.Mode != SeccompNone {
					return nil
				}
				if s.Format == FormatDocker {
					return hit(s.field(fieldSeccomp), "seccomp=unconfined: no system call filter")
				}
				return hit(s.field(fieldSeccomp), "linux.seccomp is absent: no system call filter")
			}},
		&Rule{ID: "GB402", Name: "seccomp-permissive", Severity: High, Title: "Seccomp filter allows by default",
			Field: "linux.seccomp.defaultAction; SecurityOpt seccomp=<profile>",
			Why:   "A profile whose default is to allow (or only log) refuses only what it lists: every system call added to the kernel later, and every one forgotten, is open.",
			Fix:   "Use an allow-list profile: defaultAction SCMP_ACT_ERRNO and the needed calls allowed, like Docker's and containerd's defaults.",
			Refs:  []string{"CIS Docker 5.21"},
			check: func(s *Subject) []Hit {
				if !permissive(s.Seccomp) {
					return nil
				}
				return hit(s.field(fieldSeccomp), "the default action is %s", s.Seccomp.DefaultAction)
			}},
		&Rule{ID: "GB403", Name: "seccomp-dangerous-syscalls", Severity: Medium, Title: "Seccomp allows escape-prone system calls",
			Field: "linux.seccomp.syscalls; SecurityOpt seccomp=<profile>",
			Why:   "These calls (mount, unshare, keyctl, bpf, ptrace, userfaultfd, io_uring, module loading) are what Docker's default gates behind capabilities; allowed without condition they reopen that surface.",
			Fix:   "Remove them from the allowed calls, or add the capability condition Docker's default profile uses.",
			Refs:  []string{"CIS Docker 5.21"},
			check: func(s *Subject) []Hit {
				if s.Seccomp.Mode != SeccompCustom || permissive(s.Seccomp) {
					return nil
				}
				var found []string
				for _, n := range dangerousSyscalls {
					if slices.Contains(s.Seccomp.Allowed, n) {
						found = append(found, n)
					}
				}
				if len(found) == 0 {
					return nil
				}
				return hit(s.field(fieldSeccomp), "allowed without condition: %s", strings.Join(found, ", "))
			}},
		&Rule{ID: "GB404", Name: "seccomp-engine-default", Severity: Info, Title: "Seccomp profile is the engine's default",
			Field: "HostConfig.SecurityOpt (no seccomp option)",
			Why:   "The engine applies its built-in profile, which the inspect output does not show: the audit trusts it. Docker's default allows ptrace on kernels from 4.8 and refuses nothing on engines built without seccomp.",
			Fix:   "Nothing to fix; pass an explicit profile (--security-opt seccomp=profile.json) to have it audited.",
			check: func(s *Subject) []Hit {
				if s.Seccomp.Mode != SeccompEngineDefault {
					return nil
				}
				return hit(s.field(fieldSeccomp), "no seccomp option: the engine's default profile applies")
			}},
		&Rule{ID: "GB405", Name: "apparmor-unconfined", Severity: Medium, Title: "AppArmor unconfined", Implied: true,
			Field: "process.apparmorProfile; AppArmorProfile, SecurityOpt apparmor=unconfined",
			Why:   "On AppArmor hosts the docker-default profile denies writes to /proc and /sys files and mount; unconfined removes that layer.",
			Fix:   "Remove apparmor=unconfined; use docker-default or a profile of your own.",
			Refs:  []string{"CIS Docker 5.1"},
			check: func(s *Subject) []Hit {
				if s.AppArmor != "unconfined" {
					return nil
				}
				return hit(s.field(fieldAppArmor), "the AppArmor profile is unconfined")
			}},
		&Rule{ID: "GB406", Name: "selinux-disabled", Severity: Medium, Title: "SELinux labelling disabled", Implied: true,
			Field: "HostConfig.SecurityOpt label=disable; process.selinuxLabel spc_t",
			Why:   "On SELinux hosts container_t keeps a process away from host files even after an escape; label=disable (or the spc_t super-privileged type) removes that layer.",
			Fix:   "Remove label=disable and the spc_t type; relabel volumes with :z or :Z instead.",
			Refs:  []string{"CIS Docker 5.2"},
			check: func(s *Subject) []Hit {
				if s.SELinuxDisabled {
					return hit(s.field(fieldSELinux), "SELinux labelling is disabled (label=disable)")
				}
				if strings.Contains(s.SELinuxLabel, ":spc_t:") {
					return hit(s.field(fieldSELinux), "the process type is spc_t (unconfined)")
				}
				return nil
			}},
		&Rule{ID: "GB407", Name: "no-mac-profile", Severity: Low, Title: "No AppArmor or SELinux profile",
			Field: "process.apparmorProfile, process.selinuxLabel; AppArmorProfile, ProcessLabel",
			Why:   "Neither mandatory access control layer confines the process. On hosts without AppArmor or SELinux there is none to give: seccomp, capabilities and namespaces then carry the whole load.",
			Fix:   "On AppArmor or SELinux hosts, name a profile (docker-default, container_t); elsewhere accept the finding.",
			Refs:  []string{"CIS Docker 5.1", "CIS Docker 5.2"},
			check: func(s *Subject) []Hit {
				if s.AppArmor != "" || s.SELinuxLabel != "" || s.SELinuxDisabled {
					return nil
				}
				return hit(s.field(fieldAppArmor), "no AppArmor profile and no SELinux label")
			}},
		&Rule{ID: "GB408", Name: "new-privileges-allowed", Severity: Medium, Title: "no_new_privs not set",
			Field: "process.noNewPrivileges; HostConfig.SecurityOpt no-new-privileges",
			Why:   "Without no_new_privs a setuid or file-capability binary in the image raises the process's privileges (sudo, su, ping with caps).",
			Fix:   "Set process.noNewPrivileges: true (--security-opt no-new-privileges).",
			Refs:  []string{"CIS Docker 5.25"},
			check: func(s *Subject) []Hit {
				if s.NoNewPrivileges {
					return nil
				}
				return hit(s.field(fieldNNP), "no_new_privs is off: setuid binaries raise privileges")
			}},
	)
}

func permissive(sc Seccomp) bool {
	if sc.Mode != SeccompCustom {
		return false
	}
	switch sc.DefaultAction {
	case "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_TRACE", "SCMP_ACT_NOTIFY":
		return true
	}
	return false
}
