package seccomp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/net/bpf"
)

// ErrUnsupported is a profile feature the compiler cannot express.
var ErrUnsupported = errors.New("cannot be expressed in the filter")

// Arch is an architecture the compiler has a system call table for.
type Arch struct {
	// Name is the kernel's name (uname -m).
	Name string
	// Audit is the AUDIT_ARCH_* value seccomp_data.arch carries.
	Audit uint32
	// X32 marks x86_64, whose x32 ABI sets bit 30 of the call number.
	X32   bool
	table map[string]uint32
}

// Architectures golem-box filters for.
var (
	X86_64  = Arch{Name: "x86_64", Audit: 0xc000003e, X32: true, table: sysnum_x86_64}
	AArch64 = Arch{Name: "aarch64", Audit: 0xc00000b7, table: sysnum_aarch64}
)

// Native is the architecture this binary runs on.
func Native() (Arch, error) {
	switch runtime.GOARCH {
	case "amd64":
		return X86_64, nil
	case "arm64":
		return AArch64, nil
	}
	return Arch{}, fmt.Errorf("seccomp: no system call table for %s: %w", runtime.GOARCH, ErrUnsupported)
}

// Number is the number of the named system call, if the architecture has it.
func (a Arch) Number(name string) (uint32, bool) {
	n, ok := a.table[name]
	return n, ok
}

// Return values of a seccomp filter (linux/seccomp.h).
const (
	retKillProcess = 0x80000000
	retErrno       = 0x00050000
	retAllow       = 0x7fff0000
	x32Bit         = 0x40000000
	eperm          = 1
)

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// TIOCSTI and TIOCLINUX push characters into a terminal's input queue: a
// sandbox that shares a terminal with its user could type commands into the
// user's shell (CVE-2017-5226). Deny rules for them come first.
const (
	TIOCSTI   = 0x5412
	TIOCLINUX = 0x541c
)

// DenyTerminalInjection is a rule set that refuses ioctl(TIOCSTI) and
// ioctl(TIOCLINUX) with EPERM. The kernel reads the request as a 32-bit
// unsigned int, so only the low 32 bits are compared: a request with high
// bits set is the same request (the flatpak bypass, CVE-2019-10063).
func DenyTerminalInjection() []specs.LinuxSyscall {
	e := uint(eperm)
	var out []specs.LinuxSyscall
	for _, req := range []uint64{TIOCSTI, TIOCLINUX} {
		out = append(out, specs.LinuxSyscall{Names: []string{"ioctl"}, Action: specs.ActErrno, ErrnoRet: &e,
			Args: []specs.LinuxSeccompArg{{Index: 1, Value: 0xffffffff, ValueTwo: req, Op: specs.OpMaskedEqual}}})
	}
	return out
}

// Compile turns profile into a filter for arch. Rules in prepend are
// checked before the profile's own (DenyTerminalInjection).
func Compile(p *specs.LinuxSeccomp, arch Arch, prepend ...specs.LinuxSyscall) ([]bpf.Instruction, error) {
	if p == nil {
		return nil, errors.New("seccomp: no profile")
	}
	def, err := action(p.DefaultAction, p.DefaultErrnoRet)
	if err != nil {
		return nil, fmt.Errorf("seccomp: defaultAction: %w", err)
	}
	// Group the rules by system call, in the order calls first appear, so
	// each call's alternatives sit in one block after one comparison.
	var order []uint32
	rules := map[uint32][]specs.LinuxSyscall{}
	for i, r := range append(slices.Clone(prepend), p.Syscalls...) {
		for _, name := range r.Names {
			nr, ok := arch.table[name]
			if !ok {
				continue // not a call of this architecture
			}
			if _, seen := rules[nr]; !seen {
				order = append(order, nr)
			}
			rules[nr] = append(rules[nr], r)
		}
		if _, err := action(r.Action, r.ErrnoRet); err != nil {
			return nil, fmt.Errorf("seccomp: syscalls[%d] (%v): %w", i-len(prepend), r.Names, err)
		}
	}
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: arch.Audit, SkipTrue: 1},
		bpf.RetConstant{Val: retKillProcess},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	if arch.X32 {
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32Bit, SkipFalse: 1},
			bpf.RetConstant{Val: retErrno | eperm})
	}
	for _, nr := range order {
		block, err := callBlock(rules[nr], def)
		if err != nil {
			return nil, err
		}
		if len(block) > 255 {
			return nil, fmt.Errorf("seccomp: %d rules for call %d: %w", len(rules[nr]), nr, ErrUnsupported)
		}
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: uint8(len(block))})
		prog = append(prog, block...)
	}
	prog = append(prog, bpf.RetConstant{Val: def})
	if len(prog) > 4096 {
		return nil, fmt.Errorf("seccomp: %d instructions, more than the kernel's 4096: %w", len(prog), ErrUnsupported)
	}
	return prog, nil
}

// callBlock checks one call's rules in turn; the first whose conditions
// all hold decides, and when none does, the default action.
func callBlock(rules []specs.LinuxSyscall, def uint32) ([]bpf.Instruction, error) {
	var block []bpf.Instruction
	for _, r := range rules {
		ret, _ := action(r.Action, r.ErrnoRet)
		if len(r.Args) == 0 {
			return append(block, bpf.RetConstant{Val: ret}), nil // later rules cannot match
		}
		var conds []bpf.Instruction
		seen := map[uint]bool{}
		for _, a := range r.Args {
			if a.Index > 5 || seen[a.Index] {
				return nil, fmt.Errorf("seccomp: %v: argument %d compared twice or out of range: %w", r.Names, a.Index, ErrUnsupported)
			}
			seen[a.Index] = true
			c, err := condition(a)
			if err != nil {
				return nil, fmt.Errorf("seccomp: %v: %w", r.Names, err)
			}
			conds = append(conds, c...)
		}
		// Every condition jumps to "fail" (the end of this rule) when it
		// does not hold: fix up the skips now that the length is known.
		n := len(conds)
		for i, ins := range conds {
			if j, ok := ins.(failJump); ok {
				conds[i] = j.resolve(n - i) // past the rule's return
			}
		}
		block = append(block, conds...)
		block = append(block, bpf.RetConstant{Val: ret})
	}
	return append(block, bpf.RetConstant{Val: def}), nil
}

// failJump is a comparison one of whose branches leaves the rule; the
// other goes on to the next instruction.
type failJump struct {
	cond   bpf.JumpTest
	val    uint32
	failOn bool // the branch that leaves: true or false
}

func (f failJump) Assemble() (bpf.RawInstruction, error) {
	return bpf.RawInstruction{}, errors.New("seccomp: unresolved jump")
}

// resolve is the jump with the leaving branch skipping skip instructions.
func (f failJump) resolve(skip int) bpf.Instruction {
	j := bpf.JumpIf{Cond: f.cond, Val: f.val}
	if f.failOn {
		j.SkipTrue = uint8(skip)
	} else {
		j.SkipFalse = uint8(skip)
	}
	return j
}

// condition compares one 64-bit argument, high word first: each returned
// jump that fails leaves the rule (resolved by callBlock).
func condition(a specs.LinuxSeccompArg) ([]bpf.Instruction, error) {
	lo := uint32(offArgs + 8*a.Index)
	hi := lo + 4 // both architectures are little-endian: the high word follows
	v, v2 := a.Value, a.ValueTwo
	vh, vl := uint32(v>>32), uint32(v)
	ld := func(off uint32) bpf.Instruction { return bpf.LoadAbsolute{Off: off, Size: 4} }
	// fail when hi != x, else go on
	neFail := func(x uint32) bpf.Instruction { return failJump{cond: bpf.JumpEqual, val: x, failOn: false} }
	switch a.Op {
	case specs.OpEqualTo:
		return []bpf.Instruction{ld(hi), neFail(vh), ld(lo), neFail(vl)}, nil
	case specs.OpMaskedEqual:
		mh, ml := uint32(v>>32), uint32(v)
		wh, wl := uint32(v2>>32), uint32(v2)
		return []bpf.Instruction{ld(hi), bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: mh}, neFail(wh),
			ld(lo), bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: ml}, neFail(wl)}, nil
	case specs.OpNotEqual:
		// holds unless both words are equal: hi != vh → holds (skip the
		// low check); hi == vh and lo == vl → fails.
		return []bpf.Instruction{ld(hi), bpf.JumpIf{Cond: bpf.JumpEqual, Val: vh, SkipFalse: 2}, ld(lo),
			failJump{cond: bpf.JumpEqual, val: vl, failOn: true}}, nil
	case specs.OpGreaterThan, specs.OpGreaterEqual, specs.OpLessThan, specs.OpLessEqual:
		// Unsigned 64-bit order: the high words decide unless equal.
		// For x OP v: if hi > vh → (GT/GE hold, LT/LE fail); if hi < vh →
		// the opposite; if equal, compare the low words.
		greater := a.Op == specs.OpGreaterThan || a.Op == specs.OpGreaterEqual
		loCond := map[specs.LinuxSeccompOperator]bpf.JumpTest{specs.OpGreaterThan: bpf.JumpGreaterThan,
			specs.OpGreaterEqual: bpf.JumpGreaterOrEqual, specs.OpLessThan: bpf.JumpLessThan, specs.OpLessEqual: bpf.JumpLessOrEqual}[a.Op]
		if greater {
			return []bpf.Instruction{
				ld(hi),
				bpf.JumpIf{Cond: bpf.JumpGreaterThan, Val: vh, SkipTrue: 3}, // holds: skip to the end of this condition
				failJump{cond: bpf.JumpEqual, val: vh, failOn: false},
				ld(lo),
				failJump{cond: loCond, val: vl, failOn: false},
			}, nil
		}
		return []bpf.Instruction{
			ld(hi),
			bpf.JumpIf{Cond: bpf.JumpLessThan, Val: vh, SkipTrue: 3},
			failJump{cond: bpf.JumpEqual, val: vh, failOn: false},
			ld(lo),
			failJump{cond: loCond, val: vl, failOn: false},
		}, nil
	}
	return nil, fmt.Errorf("operator %q: %w", a.Op, ErrUnsupported)
}

// action is the filter's return value for a profile action.
func action(a specs.LinuxSeccompAction, errno *uint) (uint32, error) {
	switch a {
	case specs.ActAllow:
		return retAllow, nil
	case specs.ActErrno:
		e := uint32(eperm)
		if errno != nil {
			e = uint32(*errno)
		}
		return retErrno | (e & 0xffff), nil
	case specs.ActKillProcess, specs.ActKill, specs.ActKillThread:
		// A filter for a whole sandbox kills the whole process either way.
		return retKillProcess, nil
	}
	return 0, fmt.Errorf("action %q: %w", a, ErrUnsupported)
}

// Bytes is the program as struct sock_filter entries in native byte order,
// what bwrap --seccomp and seccomp(2) take.
func Bytes(prog []bpf.Instruction) ([]byte, error) {
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	out := make([]byte, 0, 8*len(raw))
	for _, r := range raw {
		out = binary.NativeEndian.AppendUint16(out, r.Op)
		out = append(out, r.Jt, r.Jf)
		out = binary.NativeEndian.AppendUint32(out, r.K)
	}
	return out, nil
}

// Address families (linux/socket.h).
const (
	AFUnix   = 1
	AFInet   = 2
	AFInet6  = 10
	AFPacket = 17
)

// DenySockets refuses socket(2) for the given address families with
// EACCES, for a process that shares the host's network namespace (the
// Landlock backend) and must not reach the network. socketpair(2) stays
// allowed: its sockets are connected to each other and to nothing else.
func DenySockets(families ...uint64) []specs.LinuxSyscall {
	e := uint(13) // EACCES
	var out []specs.LinuxSyscall
	for _, f := range families {
		out = append(out, specs.LinuxSyscall{Names: []string{"socket"}, Action: specs.ActErrno, ErrnoRet: &e,
			Args: []specs.LinuxSeccompArg{{Index: 0, Value: 0xffffffff, ValueTwo: f, Op: specs.OpMaskedEqual}}})
	}
	return out
}

// Program compiles p for this machine's architecture, prepend first, into
// the bytes bwrap --seccomp and seccomp(2) take.
func Program(p *specs.LinuxSeccomp, prepend ...specs.LinuxSyscall) ([]byte, error) {
	arch, err := Native()
	if err != nil {
		return nil, err
	}
	prog, err := Compile(p, arch, prepend...)
	if err != nil {
		return nil, err
	}
	return Bytes(prog)
}
