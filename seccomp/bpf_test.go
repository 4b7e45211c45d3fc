//go:build linux

package seccomp

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/golem-box/golem-box/oci"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// golemProfile is the profile every container of golem-box gets.
func golemProfile(t *testing.T) *specs.LinuxSeccomp {
	t.Helper()
	s := &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{}}}
	require.NoError(t, oci.WithSeccomp()(context.Background(), s))
	return s.Linux.Seccomp
}

// call is one system call as the filter sees it.
type call struct {
	arch uint32
	nr   uint32
	args [6]uint64
}

// run evaluates prog on c with x/net/bpf's VM, which loads words
// big-endian: each 32-bit word of seccomp_data is laid out that way.
func run(t *testing.T, prog []bpf.Instruction, c call) uint32 {
	t.Helper()
	vm, err := bpf.NewVM(prog)
	require.NoError(t, err)
	return runVM(t, vm, c)
}

// runVM is run on a VM made once, for the tests that run many calls.
func runVM(t *testing.T, vm *bpf.VM, c call) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[offNr:], c.nr)
	binary.BigEndian.PutUint32(data[offArch:], c.arch)
	for i, a := range c.args {
		binary.BigEndian.PutUint32(data[offArgs+8*i:], uint32(a))       // low word first (little-endian)
		binary.BigEndian.PutUint32(data[offArgs+8*i+4:], uint32(a>>32)) // then the high word
	}
	out, err := vm.Run(data)
	require.NoError(t, err)
	return uint32(out)
}

func nr(t *testing.T, name string) uint32 {
	t.Helper()
	n, ok := X86_64.Number(name)
	require.True(t, ok, name)
	return n
}

func TestGolemProfileDecisions(t *testing.T) {
	prog, err := Compile(golemProfile(t), X86_64, DenyTerminalInjection()...)
	require.NoError(t, err)
	t.Logf("%d instructions", len(prog))
	allow, eperm, enosys := uint32(retAllow), uint32(retErrno|1), uint32(retErrno|uint32(unix.ENOSYS))
	a := X86_64.Audit
	for _, tc := range []struct {
		name string
		c    call
		want uint32
	}{
		{"read", call{a, nr(t, "read"), [6]uint64{}}, allow},
		{"mount", call{a, nr(t, "mount"), [6]uint64{}}, eperm},
		{"unshare", call{a, nr(t, "unshare"), [6]uint64{unix.CLONE_NEWUSER}}, eperm},
		{"ptrace (golem-box removes it)", call{a, nr(t, "ptrace"), [6]uint64{}}, eperm},
		{"process_vm_readv", call{a, nr(t, "process_vm_readv"), [6]uint64{}}, eperm},
		{"keyctl", call{a, nr(t, "keyctl"), [6]uint64{}}, eperm},
		{"bpf", call{a, nr(t, "bpf"), [6]uint64{}}, eperm},
		{"clone plain fork", call{a, nr(t, "clone"), [6]uint64{uint64(unix.SIGCHLD)}}, allow},
		{"clone a thread", call{a, nr(t, "clone"), [6]uint64{unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND}}, allow},
		{"clone new user namespace", call{a, nr(t, "clone"), [6]uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD)}}, eperm},
		{"clone new mount namespace", call{a, nr(t, "clone"), [6]uint64{unix.CLONE_NEWNS}}, eperm},
		{"clone flags with high bits set", call{a, nr(t, "clone"), [6]uint64{1<<40 | unix.CLONE_NEWNET}}, eperm},
		{"clone3 says ENOSYS so libc falls back", call{a, nr(t, "clone3"), [6]uint64{}}, enosys},
		{"ioctl TCGETS", call{a, nr(t, "ioctl"), [6]uint64{0, unix.TCGETS}}, allow},
		{"ioctl TIOCSTI", call{a, nr(t, "ioctl"), [6]uint64{0, unix.TIOCSTI}}, eperm},
		{"ioctl TIOCSTI with high bits (CVE-2019-10063)", call{a, nr(t, "ioctl"), [6]uint64{0, 1<<32 | unix.TIOCSTI}}, eperm},
		{"ioctl TIOCLINUX", call{a, nr(t, "ioctl"), [6]uint64{0, unix.TIOCLINUX}}, eperm},
		{"personality linux", call{a, nr(t, "personality"), [6]uint64{0}}, allow},
		{"personality query", call{a, nr(t, "personality"), [6]uint64{0xffffffff}}, allow},
		{"personality other", call{a, nr(t, "personality"), [6]uint64{4}}, eperm},
		{"socket inet", call{a, nr(t, "socket"), [6]uint64{unix.AF_INET}}, allow},
		{"socket unix", call{a, nr(t, "socket"), [6]uint64{unix.AF_UNIX}}, allow},
		{"socket vsock", call{a, nr(t, "socket"), [6]uint64{unix.AF_VSOCK}}, eperm},
		{"i386 call", call{0x40000003, 1, [6]uint64{}}, retKillProcess},
		{"x32 ABI", call{a, x32Bit | nr(t, "read"), [6]uint64{}}, eperm},
		{"unknown number", call{a, 4000, [6]uint64{}}, eperm},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, run(t, prog, tc.c), "got %#x want %#x", run(t, prog, tc.c), tc.want)
		})
	}
}

// reference decides a call the way runc with libseccomp reads the profile.
func reference(p *specs.LinuxSeccomp, arch Arch, c call, prepend []specs.LinuxSyscall) uint32 {
	for _, r := range append(append([]specs.LinuxSyscall{}, prepend...), p.Syscalls...) {
		match := false
		for _, n := range r.Names {
			if x, ok := arch.Number(n); ok && x == c.nr {
				match = true
			}
		}
		if !match {
			continue
		}
		ok := true
		for _, a := range r.Args {
			x := c.args[a.Index]
			switch a.Op {
			case specs.OpEqualTo:
				ok = ok && x == a.Value
			case specs.OpNotEqual:
				ok = ok && x != a.Value
			case specs.OpLessThan:
				ok = ok && x < a.Value
			case specs.OpLessEqual:
				ok = ok && x <= a.Value
			case specs.OpGreaterThan:
				ok = ok && x > a.Value
			case specs.OpGreaterEqual:
				ok = ok && x >= a.Value
			case specs.OpMaskedEqual:
				ok = ok && x&a.Value == a.ValueTwo
			}
		}
		if ok {
			v, _ := action(r.Action, r.ErrnoRet)
			return v
		}
	}
	v, _ := action(p.DefaultAction, p.DefaultErrnoRet)
	return v
}

// TestMatchesTheProfileForEveryCall runs every call of the table, with
// argument values around every constant the profile compares, through the
// filter and through a plain reading of the profile: they must agree.
func TestMatchesTheProfileForEveryCall(t *testing.T) {
	p := golemProfile(t)
	pre := DenyTerminalInjection()
	for _, arch := range []Arch{X86_64, AArch64} {
		prog, err := Compile(p, arch, pre...)
		require.NoError(t, err)
		vm, err := bpf.NewVM(prog)
		require.NoError(t, err)
		values := []uint64{0, 1, 0xffffffff, 1 << 32, ^uint64(0)}
		for _, r := range append(append([]specs.LinuxSyscall{}, pre...), p.Syscalls...) {
			for _, a := range r.Args {
				values = append(values, a.Value, a.Value-1, a.Value+1, a.ValueTwo, a.Value|1<<33, a.ValueTwo|1<<63)
			}
		}
		checked := 0
		for name, n := range arch.table {
			for _, v := range values {
				for idx := 0; idx < 2; idx++ {
					c := call{arch: arch.Audit, nr: n}
					c.args[idx] = v
					want, got := reference(p, arch, c, pre), runVM(t, vm, c)
					if want != got {
						t.Fatalf("%s %s(arg%d=%#x): filter %#x, profile %#x", arch.Name, name, idx, v, got, want)
					}
					checked++
				}
			}
		}
		t.Logf("%s: %d instructions, %d calls agree", arch.Name, len(prog), checked)
	}
}

// TestComparisonsAre64Bit checks each operator against Go's own unsigned
// comparison, on random values and on values that differ in one word.
func TestComparisonsAre64Bit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() uint64 {
		switch rng.IntN(4) {
		case 0:
			return uint64(rng.Uint32())
		case 1:
			return uint64(rng.Uint32()) << 32
		default:
			return rng.Uint64()
		}
	}
	e := uint(unix.EACCES)
	for _, op := range []specs.LinuxSeccompOperator{specs.OpEqualTo, specs.OpNotEqual, specs.OpLessThan,
		specs.OpLessEqual, specs.OpGreaterThan, specs.OpGreaterEqual, specs.OpMaskedEqual} {
		t.Run(string(op), func(t *testing.T) {
			for i := 0; i < 300; i++ {
				v, v2 := pick(), pick()
				if op == specs.OpMaskedEqual {
					v2 &= v
				}
				p := &specs.LinuxSeccomp{DefaultAction: specs.ActAllow, Syscalls: []specs.LinuxSyscall{{
					Names: []string{"read"}, Action: specs.ActErrno, ErrnoRet: &e,
					Args: []specs.LinuxSeccompArg{{Index: 2, Value: v, ValueTwo: v2, Op: op}}}}}
				prog, err := Compile(p, X86_64)
				require.NoError(t, err)
				for _, x := range []uint64{v, v - 1, v + 1, pick(), v ^ 1<<32, v ^ 1, v2} {
					c := call{arch: X86_64.Audit, nr: nr(t, "read")}
					c.args[2] = x
					require.Equal(t, reference(p, X86_64, c, nil), run(t, prog, c), "%s x=%#x v=%#x v2=%#x", op, x, v, v2)
				}
			}
		})
	}
}

func TestRefusesWhatItCannotExpress(t *testing.T) {
	for name, p := range map[string]*specs.LinuxSeccomp{
		"unknown action":   {DefaultAction: "SCMP_ACT_NOTIFY"},
		"rule action":      {DefaultAction: specs.ActErrno, Syscalls: []specs.LinuxSyscall{{Names: []string{"read"}, Action: "SCMP_ACT_TRACE"}}},
		"unknown op":       {DefaultAction: specs.ActErrno, Syscalls: []specs.LinuxSyscall{{Names: []string{"read"}, Action: specs.ActAllow, Args: []specs.LinuxSeccompArg{{Op: "SCMP_CMP_FOO"}}}}},
		"same arg twice":   {DefaultAction: specs.ActErrno, Syscalls: []specs.LinuxSyscall{{Names: []string{"read"}, Action: specs.ActAllow, Args: []specs.LinuxSeccompArg{{Index: 0, Op: specs.OpGreaterThan}, {Index: 0, Op: specs.OpLessThan}}}}},
		"seventh argument": {DefaultAction: specs.ActErrno, Syscalls: []specs.LinuxSyscall{{Names: []string{"read"}, Action: specs.ActAllow, Args: []specs.LinuxSeccompArg{{Index: 6, Op: specs.OpEqualTo}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Compile(p, X86_64)
			assert.ErrorIs(t, err, ErrUnsupported)
		})
	}
	_, err := Compile(nil, X86_64)
	assert.Error(t, err)
}

func TestBytesAreSockFilters(t *testing.T) {
	prog, err := Compile(golemProfile(t), X86_64, DenyTerminalInjection()...)
	require.NoError(t, err)
	b, err := Bytes(prog)
	require.NoError(t, err)
	assert.Len(t, b, 8*len(prog))
	// The first instruction loads the architecture: BPF_LD|BPF_W|BPF_ABS, k=4.
	assert.Equal(t, uint16(0x20), binary.NativeEndian.Uint16(b[0:]))
	assert.Equal(t, uint32(offArch), binary.NativeEndian.Uint32(b[4:]))
}

func TestDenySockets(t *testing.T) {
	prog, err := Compile(golemProfile(t), X86_64, DenySockets(AFInet, AFInet6, AFUnix)...)
	require.NoError(t, err)
	eacces := uint32(retErrno | uint32(unix.EACCES))
	for fam, want := range map[uint64]uint32{unix.AF_INET: eacces, unix.AF_INET6: eacces, unix.AF_UNIX: eacces,
		1<<32 | unix.AF_INET: eacces, unix.AF_NETLINK: retAllow} {
		assert.Equal(t, want, run(t, prog, call{X86_64.Audit, nr(t, "socket"), [6]uint64{fam}}), "family %#x", fam)
	}
	assert.Equal(t, uint32(retAllow), run(t, prog, call{X86_64.Audit, nr(t, "socketpair"), [6]uint64{unix.AF_UNIX}}))
}
