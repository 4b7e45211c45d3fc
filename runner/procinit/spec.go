package procinit

// Name is the argv[0] under which golem-box runs as the init helper.
const Name = "golem-box-init"

// Spec is what the helper does before it execs Path.
type Spec struct {
	// Cgroups are cgroup.procs files to join.
	Cgroups []string `json:"cgroups,omitempty"`
	// NoFile is RLIMIT_NOFILE (soft and hard); zero leaves it.
	NoFile uint64 `json:"nofile,omitempty"`
	// DropCaps empties every capability set, the bounding set included.
	DropCaps bool `json:"drop_caps,omitempty"`
	// NoNewPrivs sets no_new_privs.
	NoNewPrivs bool `json:"no_new_privs,omitempty"`
	// Landlock, when set, restricts the filesystem (and more) to its rules.
	Landlock *Landlock `json:"landlock,omitempty"`
	// Seccomp is a filter program (struct sock_filter entries) to install.
	Seccomp []byte `json:"seccomp,omitempty"`
	// Path is the program; when it has no slash it is looked up in the
	// PATH of Env, after the restrictions apply.
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir,omitempty"`
}

// Landlock are the rules of a Landlock domain.
type Landlock struct {
	// Rules grant access below paths.
	Rules []PathRule `json:"rules"`
	// MinABI is the lowest Landlock ABI that enforces every rule.
	MinABI int `json:"min_abi"`
	// DenyNet refuses TCP bind and connect (ABI 4 and later).
	DenyNet bool `json:"deny_net,omitempty"`
}

// Access is what a rule grants.
type Access string

// Accesses.
const (
	// Read is reading files, listing directories and executing.
	Read Access = "read"
	// Write is everything: reading, writing, creating, removing.
	Write Access = "write"
	// ListOnly is listing one directory (its entries, not below).
	ListOnly Access = "list"
)

// PathRule grants Access below Path (to Path itself, for a file).
type PathRule struct {
	Path   string `json:"path"`
	Access Access `json:"access"`
	// Device marks device files, which may also be ioctl'd (terminals).
	Device bool `json:"device,omitempty"`
}
