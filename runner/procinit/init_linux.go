package procinit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"github.com/golem-box/golem-box/runner/cgroup"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/moby/sys/reexec"
	"golang.org/x/sys/unix"
)

// Descriptors the helper is given.
const (
	specFD   = 3
	statusFD = 4
	// FirstExtraFD is the first descriptor of Command's extra files, passed
	// on to the program as they are.
	FirstExtraFD = 5
)

func init() {
	reexec.Register(Name, main)
	if reexec.Init() {
		os.Exit(0) // not reached: main execs or exits
	}
}

// Command is the helper that will run spec, with extra files from
// descriptor FirstExtraFD on. The caller sets stdio and starts it, then
// calls Started.
func Command(spec *Spec, extra ...*os.File) (*Handle, error) {
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return nil, err
	}
	cmd := reexec.Command(Name)
	// Its own process group, so a ^C at golem-box's terminal does not reach
	// it before golem-box decides; killed if golem-box dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.ExtraFiles = append([]*os.File{specR, statusW}, extra...)
	return &Handle{Cmd: cmd, spec: data, specR: specR, specW: specW, statusR: statusR, statusW: statusW}, nil
}

// Handle is a helper about to start or started.
type Handle struct {
	Cmd              *exec.Cmd
	spec             []byte
	specR, specW     *os.File
	statusR, statusW *os.File
}

// Start starts the helper and waits until it has exec'd the program:
// an error is golem-box's (the helper's report), not the program's.
func (h *Handle) Start() error {
	err := h.Cmd.Start()
	h.specR.Close()
	h.statusW.Close()
	defer h.statusR.Close()
	if err != nil {
		h.specW.Close()
		return err
	}
	go func() {
		h.specW.Write(h.spec)
		h.specW.Close()
	}()
	msg, _ := io.ReadAll(io.LimitReader(h.statusR, 64<<10))
	if len(msg) > 0 {
		h.Cmd.Wait()
		return errors.New(string(msg))
	}
	return nil
}

// main is the helper itself.
func main() {
	runtime.LockOSThread()
	status := os.NewFile(statusFD, "status")
	fail := func(format string, a ...any) {
		fmt.Fprintf(status, format, a...)
		os.Exit(127)
	}
	unix.CloseOnExec(statusFD)
	data, err := io.ReadAll(io.LimitReader(os.NewFile(specFD, "spec"), 16<<20))
	if err != nil {
		fail("read the init spec: %v", err)
	}
	var s Spec
	if err := json.Unmarshal(data, &s); err != nil {
		fail("read the init spec: %v", err)
	}
	unix.Close(specFD)
	if err := s.apply(); err != nil {
		fail("%v", err)
	}
	// Exec failure is reported through the status pipe, which the exec
	// would have closed.
	err = syscall.Exec(s.Path, s.Args, s.Env)
	fail("%s: %v", s.Args[0], err)
}

func (s *Spec) apply() error {
	if err := cgroup.Join(s.Cgroups); err != nil {
		return err
	}
	if s.NoFile > 0 {
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: s.NoFile, Max: s.NoFile}); err != nil {
			return fmt.Errorf("set RLIMIT_NOFILE: %w", err)
		}
	}
	if s.DropCaps {
		if err := dropCaps(); err != nil {
			return err
		}
	}
	if s.NoNewPrivs || s.Landlock != nil || len(s.Seccomp) > 0 {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("set no_new_privs: %w", err)
		}
	}
	if s.Landlock != nil {
		if err := s.Landlock.restrict(); err != nil {
			return err
		}
	}
	if s.Dir != "" {
		if err := os.Chdir(s.Dir); err != nil {
			return fmt.Errorf("working directory: %w", err)
		}
	}
	if !strings.Contains(s.Path, "/") {
		p, err := lookPath(s.Path, s.Env)
		if err != nil {
			return err
		}
		s.Path = p
	}
	if len(s.Seccomp) > 0 {
		if err := installSeccomp(s.Seccomp); err != nil {
			return err
		}
	}
	return nil
}

// lookPath finds file in the PATH of env, after the restrictions apply:
// what the program would find, not what golem-box can see. The helper's
// own environment is about to be replaced by env anyway.
func lookPath(file string, env []string) (string, error) {
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	os.Setenv("PATH", path)
	return exec.LookPath(file)
}

// dropCaps empties the bounding, ambient, inheritable, permitted and
// effective sets of this thread, which is the one that execs.
func dropCaps() error {
	last := 40
	if data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		fmt.Sscan(string(data), &last)
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			if errors.Is(err, unix.EPERM) {
				break // no CAP_SETPCAP: an unprivileged process has nothing to drop
			}
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}

// installSeccomp loads prog for this thread, the one that execs (the
// others die with the exec), after no_new_privs.
func installSeccomp(prog []byte) error {
	if len(prog)%8 != 0 || len(prog) == 0 {
		return fmt.Errorf("seccomp: a program of %d bytes is not a list of sock_filter entries", len(prog))
	}
	fprog := unix.SockFprog{Len: uint16(len(prog) / 8), Filter: (*unix.SockFilter)(unsafe.Pointer(&prog[0]))}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return fmt.Errorf("install the seccomp filter: %w", e)
	}
	return nil
}

// Landlock access rights by the ABI that introduced them.
var (
	fsRead  = uint64(ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir)
	fsV1    = uint64(ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSReadDir | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym)
	fsFile  = uint64(ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev)
	netTCP  = uint64(ll.AccessNetBindTCP | ll.AccessNetConnectTCP)
	scopeV6 = uint64(ll.ScopeAbstractUnixSocket | ll.ScopeSignal)
)

// handled is what a ruleset handles (and so denies unless granted) on a
// kernel with the given ABI.
func handled(abi int, denyNet bool) ll.RulesetAttr {
	a := ll.RulesetAttr{HandledAccessFS: fsV1}
	if abi >= 2 {
		a.HandledAccessFS |= ll.AccessFSRefer
	}
	if abi >= 3 {
		a.HandledAccessFS |= ll.AccessFSTruncate
	}
	if abi >= 5 {
		a.HandledAccessFS |= ll.AccessFSIoctlDev
	}
	if abi >= 4 && denyNet {
		a.HandledAccessNet = netTCP
	}
	if abi >= 6 {
		a.Scoped = scopeV6
	}
	if abi >= 9 {
		a.HandledAccessFS |= ll.AccessFSResolveUnix // granted with Write only
	}
	return a
}

// restrict applies the rules to this thread, the one that execs. It uses
// go-landlock's system call layer directly: its Restrict applies to every
// thread through libpsx, which needs cgo, and only this thread matters.
func (l *Landlock) restrict() error {
	abi, err := landlockABI()
	if err != nil {
		return err
	}
	if abi < l.MinABI {
		return fmt.Errorf("landlock: the kernel has ABI %d, these rules need %d", abi, l.MinABI)
	}
	attr := handled(abi, l.DenyNet)
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return fmt.Errorf("landlock: create ruleset: %w", err)
	}
	defer unix.Close(fd)
	for _, r := range l.Rules {
		var access uint64
		switch r.Access {
		case Write:
			access = attr.HandledAccessFS
		case Read:
			access = fsRead
		case ListOnly:
			access = ll.AccessFSReadDir
		default:
			return fmt.Errorf("landlock: access %q", r.Access)
		}
		if !r.Device {
			access &^= ll.AccessFSIoctlDev
		}
		pfd, err := unix.Open(r.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("landlock: %s: %w", r.Path, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(pfd, &st); err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			access &= fsFile
		}
		err = ll.LandlockAddPathBeneathRule(fd, &ll.PathBeneathAttr{AllowedAccess: access & attr.HandledAccessFS, ParentFd: pfd}, 0)
		unix.Close(pfd)
		if err != nil {
			return fmt.Errorf("landlock: rule for %s: %w", r.Path, err)
		}
	}
	if err := ll.LandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("landlock: restrict: %w", err)
	}
	return nil
}

// landlockABI asks the kernel which Landlock ABI it has (0: none).
func landlockABI() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0, fmt.Errorf("landlock is not enabled in this kernel (%v): add landlock to the lsm= boot parameter", err)
	}
	return v, nil
}

// ABI is the kernel's Landlock ABI, or an error saying why there is none.
func ABI() (int, error) { return landlockABI() }
