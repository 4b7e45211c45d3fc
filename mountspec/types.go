package mountspec

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// FileName is the name of the project configuration file, found the way git
// finds .git: in the working directory or the nearest parent that has one.
const FileName = "golem-box.yaml"

// Config is the content of a golem-box.yaml file.
type Config struct {
	// Sandbox describes the sandbox commands and file tools run in. For
	// workers it is the ceiling: the most the entry worker can have.
	Sandbox Sandbox `json:"sandbox" yaml:"sandbox"`
	// Approval says who approves changes that need consent, and where
	// decisions are logged.
	Approval ApprovalConfig `json:"approval" yaml:"approval,omitempty"`
	// Delegation bounds chains of workers calling workers.
	Delegation Delegation `json:"delegation" yaml:"delegation,omitempty"`
}

// ApprovalConfig is the approval: section of golem-box.yaml (seed 001).
type ApprovalConfig struct {
	// Command approves a change when it exits 0. It receives the request as
	// JSON on standard input. A string runs with /bin/sh -c; a list is run
	// as it is, like Docker's shell and exec forms of CMD.
	Command Command `json:"command,omitempty" yaml:"command,omitempty"`
	// Log is the file that every approval decision is appended to as a JSON
	// line; relative to the configuration file. It must lie outside every
	// writable mount, so that a worker cannot rewrite its own record.
	Log string `json:"log,omitempty" yaml:"log,omitempty"`
}

// Command is a program and its arguments.
type Command []string

// UnmarshalYAML accepts the shell form (a string) and the exec form (a list).
func (c *Command) UnmarshalYAML(node *yaml.Node) error {
	switch node.Kind {
	case yaml.ScalarNode:
		*c = Command{"/bin/sh", "-c", node.Value}
		return nil
	case yaml.SequenceNode:
		var l []string
		if err := node.Decode(&l); err != nil {
			return err
		}
		*c = l
		return nil
	}
	return fmt.Errorf("line %d: command must be a string (run by /bin/sh -c) or a list of arguments", node.Line)
}

// DefaultMaxDepth is how deep workers may call workers when delegation.max_depth is unset.
const DefaultMaxDepth = 5

// Delegation is the delegation: section of golem-box.yaml (seed 002).
type Delegation struct {
	// MaxDepth is how many calls deep a chain of workers may go: the entry
	// worker is at depth 0 and each call adds one. Unset means
	// DefaultMaxDepth; 0 forbids delegation.
	MaxDepth *int `json:"max_depth,omitempty" yaml:"max_depth,omitempty"`
}

// Depth returns MaxDepth or its default.
func (d Delegation) Depth() int {
	if d.MaxDepth == nil {
		return DefaultMaxDepth
	}
	return *d.MaxDepth
}

// Sandbox is a Docker-style description of what a worker or command can see.
// After Load or Validate, Root and every mount source are absolute, cleaned
// host paths and Zones have been turned into Mounts.
type Sandbox struct {
	// Root is the host directory seen as "/". Empty means that only the
	// mounts are visible (zones-only and restricted sandboxes).
	Root string `json:"root,omitempty" yaml:"root,omitempty"`
	// ReadOnly makes the root read-only. Mounts have their own flag.
	ReadOnly bool `json:"readonly" yaml:"readonly,omitempty"`
	// Mounts are bind mounts laid over the root; the longest target wins.
	Mounts []Mount `json:"mounts,omitempty" yaml:"mounts,omitempty"`
	// Zones are the named directories of earlier golem designs; each becomes
	// a mount at /<name> carrying that name.
	Zones map[string]Zone `json:"zones,omitempty" yaml:"zones,omitempty"`
	// Network is off unless set to true or to an allow-list of domains.
	Network Network `json:"network" yaml:"network,omitempty"`
	// Limits bound the resources of commands run in the sandbox.
	Limits Limits `json:"limits" yaml:"limits,omitempty"`
	// Files are application-level rules for the file tools.
	Files FileRules `json:"files" yaml:"files,omitempty"`
	// Approval is the consent the root needs for changes, and the default of
	// mounts that set none. Unset modes mean ApprovalAsk.
	Approval Approval `json:"approval,omitzero" yaml:"approval,omitempty"`
	// Image supplies the operating system of container backends: "host"
	// (the default), "none", or an image reference.
	Image string `json:"image,omitempty" yaml:"image,omitempty"`
	// Backend chooses how commands are enforced; see Backends.
	Backend Backend `json:"backend,omitempty" yaml:"backend,omitempty"`
	// RequireOSSandbox refuses to run commands when no OS-level backend is
	// usable. It defaults to true.
	RequireOSSandbox bool `json:"require_os_sandbox" yaml:"require_os_sandbox"`
	// DangerousAllowSensitiveSources permits mounting "/", /proc, /sys, /dev,
	// /boot and the Docker or containerd sockets. Almost never what you want.
	DangerousAllowSensitiveSources bool `json:"dangerous_allow_sensitive_sources,omitempty" yaml:"dangerous_allow_sensitive_sources,omitempty"`
}

// Mount is a bind mount, named as in Docker's --mount flag.
type Mount struct {
	// Source is the host directory.
	Source string `json:"source" yaml:"source"`
	// Target is the absolute virtual path the source appears at.
	Target string `json:"target" yaml:"target"`
	// ReadOnly forbids writes through this mount.
	ReadOnly bool `json:"readonly" yaml:"readonly,omitempty"`
	// Name optionally names the mount so that workers can ask for it.
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// Trust marks what the mount holds: "untrusted" content (downloads,
	// documents from users) makes every command that can reach it run in a
	// container. Empty means trusted unless its files say otherwise.
	Trust Trust `json:"trust,omitempty" yaml:"trust,omitempty"`
	// Approval is the consent changes here need; unset modes take the
	// sandbox's.
	Approval Approval `json:"approval,omitzero" yaml:"approval,omitempty"`
	// Suffixes and MaxFileBytes, when set, replace sandbox.files' for the
	// files of this mount.
	Suffixes     []string `json:"suffixes,omitempty" yaml:"suffixes,omitempty"`
	MaxFileBytes ByteSize `json:"max_file_bytes,omitempty" yaml:"max_file_bytes,omitempty"`

	// from names where the mount was written when it was not a plain entry of
	// sandbox.mounts (a zone or a command-line flag), for error messages.
	from string
}

// Trust is where content came from.
type Trust string

// Trust levels.
const (
	Trusted   Trust = "trusted"
	Untrusted Trust = "untrusted"
)

// Zone is the zone form of a mount: zones: {cache: {path: ./cache, mode: rw}}.
type Zone struct {
	// Path is the host directory, relative to the configuration file.
	Path string `json:"path" yaml:"path"`
	// Mode is ZoneRW or ZoneRO; empty means read-write, as for mounts.
	Mode ZoneMode `json:"mode,omitempty" yaml:"mode,omitempty"`
	// Approval, Suffixes and MaxFileBytes are those of the mount.
	Approval     Approval `json:"approval,omitzero" yaml:"approval,omitempty"`
	Suffixes     []string `json:"suffixes,omitempty" yaml:"suffixes,omitempty"`
	MaxFileBytes ByteSize `json:"max_file_bytes,omitempty" yaml:"max_file_bytes,omitempty"`
}

// ApprovalMode says whether a change needs someone's consent (seed 001).
type ApprovalMode string

// Approval modes.
const (
	// ApprovalPreApproved lets the change happen without asking.
	ApprovalPreApproved ApprovalMode = "preApproved"
	// ApprovalAsk asks an approver first; it is the default.
	ApprovalAsk ApprovalMode = "ask"
	// ApprovalBlocked refuses the change.
	ApprovalBlocked ApprovalMode = "blocked"
)

// Approval is consent, separate from capability: a read-write mount may
// still need someone to agree to each change. A read-only mount needs none,
// since its changes are refused before anyone is asked.
type Approval struct {
	// Write covers creating, replacing, appending to and editing files.
	Write ApprovalMode `json:"write,omitempty" yaml:"write,omitempty"`
	// Delete covers removing files and directories.
	Delete ApprovalMode `json:"delete,omitempty" yaml:"delete,omitempty"`
}

// Over fills the modes a leaves unset from b.
func (a Approval) Over(b Approval) Approval {
	if a.Write == "" {
		a.Write = b.Write
	}
	if a.Delete == "" {
		a.Delete = b.Delete
	}
	return a
}

// ZoneMode is the access mode of a zone.
type ZoneMode string

// Zone modes.
const (
	ZoneRW ZoneMode = "rw"
	ZoneRO ZoneMode = "ro"
)

// Backend names an enforcement layer.
type Backend string

// Backends golem-box knows. Not every one is implemented on every platform;
// the runner reports which are usable.
const (
	BackendAuto       Backend = "auto"
	BackendOCI        Backend = "oci"
	BackendRunc       Backend = "runc"
	BackendCrun       Backend = "crun"
	BackendDocker     Backend = "docker"
	BackendContainerd Backend = "containerd"
	BackendBwrap      Backend = "bwrap"
	BackendLandlock   Backend = "landlock"
	BackendSeatbelt   Backend = "seatbelt"
	BackendNone       Backend = "none"
)

// Backends lists the valid values of Sandbox.Backend.
var Backends = []Backend{BackendAuto, BackendOCI, BackendRunc, BackendCrun, BackendDocker,
	BackendContainerd, BackendBwrap, BackendLandlock, BackendSeatbelt, BackendNone}

// Network is the network boundary. In YAML it is false, true, or
// {allow: [domain, ...]}.
type Network struct {
	// Enabled turns the network on; Allow narrows it to some domains.
	Enabled bool `json:"enabled" yaml:"enabled"`
	// Allow lists the domains that may be reached when not empty.
	Allow []string `json:"allow,omitempty" yaml:"allow,omitempty"`
}

// UnmarshalYAML accepts a boolean or a mapping with an allow list.
func (n *Network) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind == yaml.ScalarNode {
		var b bool
		if err := node.Decode(&b); err != nil {
			return fmt.Errorf("line %d: network must be true, false or {allow: [domains]}, got %q", node.Line, node.Value)
		}
		*n = Network{Enabled: b}
		return nil
	}
	if node.Kind == yaml.MappingNode {
		for i := 0; i < len(node.Content); i += 2 {
			if k := node.Content[i]; k.Value != "allow" {
				return fmt.Errorf("line %d: network.%s is not a known field: the only one is allow", k.Line, k.Value)
			}
		}
	}
	var m struct {
		Allow []string `yaml:"allow"`
	}
	if err := node.Decode(&m); err != nil {
		return err
	}
	if len(m.Allow) == 0 {
		// An empty allow-list must not read as "the network is on".
		return fmt.Errorf("line %d: network.allow is empty: write network: false for no network, or list the domains to reach", node.Line)
	}
	*n = Network{Enabled: true, Allow: m.Allow}
	return nil
}

// MarshalYAML writes the short forms back.
func (n Network) MarshalYAML() (any, error) {
	if len(n.Allow) > 0 {
		return map[string][]string{"allow": n.Allow}, nil
	}
	return n.Enabled, nil
}

// MarshalJSON writes false, true or {"allow": [...]}, as in YAML.
func (n Network) MarshalJSON() ([]byte, error) {
	v, _ := n.MarshalYAML()
	return json.Marshal(v)
}

// UnmarshalJSON mirrors UnmarshalYAML.
func (n *Network) UnmarshalJSON(b []byte) error {
	var on bool
	if err := json.Unmarshal(b, &on); err == nil {
		*n = Network{Enabled: on}
		return nil
	}
	var m struct {
		Allow []string `json:"allow"`
	}
	if err := json.Unmarshal(b, &m); err != nil || len(m.Allow) == 0 {
		return fmt.Errorf("network must be true, false or {\"allow\": [domains]} with at least one domain")
	}
	*n = Network{Enabled: true, Allow: m.Allow}
	return nil
}

// Limits bound the resources of a command. Zero means the backend's default.
type Limits struct {
	Memory      ByteSize `json:"memory,omitempty" yaml:"memory,omitempty"`
	PIDs        int64    `json:"pids,omitempty" yaml:"pids,omitempty"`
	CPUs        float64  `json:"cpus,omitempty" yaml:"cpus,omitempty"`
	Timeout     Duration `json:"timeout,omitempty" yaml:"timeout,omitempty"`
	OutputBytes ByteSize `json:"output_bytes,omitempty" yaml:"output_bytes,omitempty"`
}

// Asked says whether any kernel-enforced limit (memory, pids, cpus) is set,
// as opposed to golem-box's defaults.
func (l Limits) Asked() bool { return l.Memory > 0 || l.PIDs > 0 || l.CPUs > 0 }

// FileRules are application-level rules the file tools enforce (seed 003).
type FileRules struct {
	// Suffixes, when not empty, are the only file name suffixes the file
	// tools read or write (".md", ".txt").
	Suffixes []string `json:"suffixes,omitempty" yaml:"suffixes,omitempty"`
	// MaxFileBytes bounds files read and written; zero means no limit.
	MaxFileBytes ByteSize `json:"max_file_bytes,omitempty" yaml:"max_file_bytes,omitempty"`
	// AllowHardLinks lets the file tools read and append to files that have
	// more than one name. A second name can be a way into a file outside the
	// sandbox, so they are refused by default.
	AllowHardLinks bool `json:"allow_hard_links,omitempty" yaml:"allow_hard_links,omitempty"`
}

// ByteSize is a size in bytes, written as a number or with a Docker-style
// unit: 512k, 64m, 1g (binary multiples, like docker --memory).
type ByteSize int64

// ParseByteSize parses "1048576", "1024k", "1m", "2g" or "1.5GiB".
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "ib"), "b")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k':
			mult = 1 << 10
		case 'm':
			mult = 1 << 20
		case 'g':
			mult = 1 << 30
		case 't':
			mult = 1 << 40
		}
		if mult != 1 {
			t = t[:n-1]
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || f*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("invalid size %q: write a number of bytes or use a unit such as 512k, 64m, 1g", s)
	}
	return ByteSize(f * float64(mult)), nil
}

// String prints the size in the largest exact unit.
func (b ByteSize) String() string {
	for _, u := range []struct {
		s string
		n int64
	}{{"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}} {
		if b != 0 && int64(b)%u.n == 0 {
			return strconv.FormatInt(int64(b)/u.n, 10) + u.s
		}
	}
	return strconv.FormatInt(int64(b), 10)
}

// UnmarshalYAML accepts a number or a string with a unit.
func (b *ByteSize) UnmarshalYAML(node *yaml.Node) error {
	v, err := ParseByteSize(node.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", node.Line, err)
	}
	*b = v
	return nil
}

// MarshalJSON writes the number of bytes.
func (b ByteSize) MarshalJSON() ([]byte, error) { return json.Marshal(int64(b)) }

// UnmarshalJSON accepts a number or a string with a unit.
func (b *ByteSize) UnmarshalJSON(data []byte) error {
	s := strings.Trim(string(data), `"`)
	v, err := ParseByteSize(s)
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// Duration is a time.Duration written as "30s" or "5m".
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(node *yaml.Node) error {
	v, err := time.ParseDuration(node.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: invalid duration %q: write it like 30s, 5m or 1h", node.Line, node.Value)
	}
	*d = Duration(v)
	return nil
}

// String prints the duration as Go does.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON parses a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// Default returns the sandbox settings that apply when a field is absent.
func Default() Sandbox {
	return Sandbox{RequireOSSandbox: true}
}
