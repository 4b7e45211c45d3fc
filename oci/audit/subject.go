package audit

// Format is the kind of document a Subject was read from.
type Format string

// The formats Parse recognises.
const (
	// FormatOCI is an OCI runtime config.json.
	FormatOCI Format = "oci"
	// FormatDocker is one container of docker inspect output.
	FormatDocker Format = "docker"
)

// Subject is one container's security-relevant settings, whichever format
// they came from. Field* strings name where in the input each fact was read,
// in the input's own syntax.
type Subject struct {
	// Target names the input: the file, file[N] for an array entry, or the
	// container.
	Target string `json:"target"`
	// Format is the input's format.
	Format Format `json:"format"`
	// Name is the container's name when the input has one.
	Name string `json:"name,omitempty"`

	// Privileged is Docker's --privileged (OCI has no such flag: rules
	// detect the equivalent).
	Privileged bool

	// Caps are the capability sets, upper case without the CAP_ prefix.
	Caps Caps

	// UID is the process's user id inside the container; UIDKnown is false
	// when the input names a user (Docker "app") rather than a number.
	UID      uint32
	UIDKnown bool
	// UIDMappings are the user namespace's mappings (OCI only).
	UIDMappings []IDMap

	// Namespaces maps a namespace type (network, pid, ipc, uts, user,
	// cgroup, mount) to how the container gets it.
	Namespaces map[string]Namespace

	Mounts []Mount
	// RootfsPropagation is OCI linux.rootfsPropagation.
	RootfsPropagation string

	// MaskedPaths and ReadonlyPaths are what the process gets: Docker's
	// defaults when its inspect output has no list, empty when none.
	MaskedPaths   []string
	ReadonlyPaths []string

	Seccomp         Seccomp
	AppArmor        string
	SELinuxLabel    string
	SELinuxDisabled bool
	NoNewPrivileges bool
	ReadonlyRootfs  bool

	// MemoryLimit and SwapLimit are bytes, 0 for none; SwapLimit is memory
	// plus swap as in both formats, -1 for unlimited.
	MemoryLimit    int64
	SwapLimit      int64
	PidsLimit      int64
	CPULimited     bool
	OOMScoreAdj    int
	OOMKillDisable bool

	DeviceRules []DeviceRule
	Devices     []Device
	Sysctls     map[string]string
	Cwd         string
	// Hooks counts the OCI hooks per phase.
	Hooks           map[string]int
	Env             []string
	Ports           []Port
	PublishAllPorts bool
	Restart         RestartPolicy

	// Fields names, per fact, where it was read (see the field* keys).
	Fields map[string]string

	// lines maps the input's fields to their lines (see fieldLines).
	lines map[string]int
}

// The keys of Subject.Fields.
const (
	fieldPrivileged  = "privileged"
	fieldCaps        = "caps"
	fieldUser        = "user"
	fieldUIDMap      = "uidMappings"
	fieldMasked      = "maskedPaths"
	fieldReadonly    = "readonlyPaths"
	fieldSeccomp     = "seccomp"
	fieldAppArmor    = "apparmor"
	fieldSELinux     = "selinux"
	fieldNNP         = "noNewPrivileges"
	fieldRootfs      = "readonlyRootfs"
	fieldMemory      = "memory"
	fieldSwap        = "swap"
	fieldPids        = "pids"
	fieldCPU         = "cpu"
	fieldOOMScore    = "oomScoreAdj"
	fieldOOMKill     = "oomKillDisable"
	fieldDeviceRules = "deviceRules"
	fieldSysctl      = "sysctl"
	fieldCwd         = "cwd"
	fieldHooks       = "hooks"
	fieldEnv         = "env"
	fieldRestart     = "restart"
	fieldPropagation = "rootfsPropagation"
)

// field returns where fact key was read, falling back to the key itself.
func (s *Subject) field(key string) string {
	if f := s.Fields[key]; f != "" {
		return f
	}
	return key
}

// Caps are the capability sets of the container's process.
type Caps struct {
	Bounding, Effective, Permitted, Ambient, Inheritable []string
}

// has reports whether c is in the bounding, effective or permitted set, the
// sets a process can use or regain.
func (c Caps) has(name string) bool {
	for _, set := range [][]string{c.Bounding, c.Effective, c.Permitted} {
		for _, x := range set {
			if x == name {
				return true
			}
		}
	}
	return false
}

// all returns the union of the sets that grant privilege, in order.
func (c Caps) all() []string {
	seen := map[string]bool{}
	var out []string
	for _, set := range [][]string{c.Bounding, c.Effective, c.Permitted, c.Ambient, c.Inheritable} {
		for _, x := range set {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	return out
}

// IDMap is one user namespace mapping.
type IDMap struct {
	ContainerID, HostID, Size uint32
}

// NamespaceMode is how a container gets one namespace.
type NamespaceMode string

// The namespace modes.
const (
	// NSPrivate is a new namespace of its own.
	NSPrivate NamespaceMode = "private"
	// NSHost shares the host's (OCI: the namespace is not listed).
	NSHost NamespaceMode = "host"
	// NSJoin joins another process's or container's namespace.
	NSJoin NamespaceMode = "join"
)

// Namespace is the mode of one namespace and where it was read.
type Namespace struct {
	Mode NamespaceMode
	// Path is the namespace joined (an nsfs path or "container:ID").
	Path  string
	Field string
	// Assumed is true when the input leaves it to the engine's default
	// (Docker's empty UsernsMode or CgroupnsMode).
	Assumed bool
}

// Mount is one mount of the container.
type Mount struct {
	Type        string
	Source      string
	Destination string
	ReadOnly    bool
	// Recursive is true when a read-only bind is read-only in its
	// submounts too (OCI rro, Docker ReadOnlyForceRecursive).
	Recursive   bool
	Propagation string
	Field       string
}

// bind reports whether m shows a host path in the container.
func (m Mount) bind() bool {
	return m.Type == "bind" || m.Type == "" && m.Source != "" && m.Source[0] == '/'
}

// SeccompMode says which seccomp filter the process gets.
type SeccompMode string

// The seccomp modes.
const (
	// SeccompNone is no filter at all.
	SeccompNone SeccompMode = "none"
	// SeccompEngineDefault is the engine's default profile (Docker without
	// a seccomp option).
	SeccompEngineDefault SeccompMode = "engine-default"
	// SeccompCustom is a profile given in full in the input.
	SeccompCustom SeccompMode = "custom"
)

// Seccomp is the process's system call filter.
type Seccomp struct {
	Mode          SeccompMode
	DefaultAction string
	// Allowed are the system calls allowed without argument or capability
	// conditions.
	Allowed []string
}

// DeviceRule is one device cgroup rule.
type DeviceRule struct {
	Allow bool
	// Type is a (all), b or c.
	Type         string
	Major, Minor int64 // -1 for any
	Access       string
	Field        string
}

// Device is a device node created in the container.
type Device struct {
	Path     string
	HostPath string
	Type     string
	Major    int64
	Minor    int64
	Field    string
}

// Port is one published port.
type Port struct {
	HostIP        string
	HostPort      string
	ContainerPort string
	Field         string
}

// RestartPolicy is Docker's restart policy.
type RestartPolicy struct {
	Name       string
	MaxRetries int
}
