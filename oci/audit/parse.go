package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxInputBytes bounds one input: a config.json is a few kilobytes and
// docker inspect of a few hundred containers stays well under it.
const MaxInputBytes = 32 << 20

// ErrInput is wrapped by every error about an input that cannot be audited.
var ErrInput = errors.New("cannot audit input")

// InputError says which input could not be read and where.
type InputError struct {
	// Target names the input (file name, "-" for stdin, or container).
	Target string
	// Line and Column locate the problem when known (1-based, 0 unknown).
	Line, Column int
	Reason       string

	// off is the offset of a type error inside the object parsed, located
	// by Parse in the whole input; 0 when unknown.
	off int64
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.Target, e.Line, e.Column, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.Target, e.Reason)
}

func (e *InputError) Unwrap() error { return ErrInput }

// Read reads one input of at most MaxInputBytes and parses it.
func Read(target string, r io.Reader) ([]*Subject, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, &InputError{Target: target, Reason: err.Error()}
	}
	if len(data) > MaxInputBytes {
		return nil, &InputError{Target: target, Reason: fmt.Sprintf("larger than %d MiB: not a config.json or docker inspect output", MaxInputBytes>>20)}
	}
	return Parse(target, data)
}

// Parse reads an OCI config.json, or docker inspect output (one object or an
// array of them), detected by content.
func Parse(target string, data []byte) ([]*Subject, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, &InputError{Target: target, Reason: "empty input: expected an OCI config.json or docker inspect output"}
	}
	// Each value keeps its offset in data, to locate errors and fields.
	type value struct {
		raw json.RawMessage
		off int
	}
	if !json.Valid(data) {
		var v any // only to learn where and why
		return nil, jsonError(target, data, json.Unmarshal(data, &v))
	}
	var objs []value
	array := trimmed[0] == '['
	if array {
		dec := json.NewDecoder(bytes.NewReader(data))
		if _, err := dec.Token(); err != nil {
			return nil, jsonError(target, data, err)
		}
		for dec.More() {
			off := int(dec.InputOffset())
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, jsonError(target, data, err)
			}
			off += bytes.Index(data[off:], raw[:1])
			objs = append(objs, value{raw, off})
		}
		if len(objs) == 0 {
			return nil, &InputError{Target: target, Reason: "an empty array: docker inspect found no container"}
		}
	} else {
		objs = []value{{trimmed, bytes.Index(data, trimmed[:1])}}
	}
	var out []*Subject
	for i, v := range objs {
		name := target
		if array {
			name = fmt.Sprintf("%s[%d]", target, i)
		}
		s, err := parseOne(name, v.raw)
		if err != nil {
			var ie *InputError
			if errors.As(err, &ie) && ie.Line == 0 && ie.off > 0 {
				// Locate a type error inside this element of the whole input.
				ie.Line, ie.Column = position(data, int64(v.off)+ie.off)
			}
			return nil, err
		}
		s.lines = fieldLines(data, v.off)
		out = append(out, s)
	}
	return out, nil
}

// parseOne detects the format of one JSON object by its keys.
func parseOne(target string, raw json.RawMessage) (*Subject, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, &InputError{Target: target, Reason: "expected a JSON object, got " + kind(raw)}
	}
	switch {
	case keys["HostConfig"] != nil || keys["Config"] != nil && keys["Id"] != nil:
		return fromDocker(target, raw)
	case keys["ociVersion"] != nil || keys["process"] != nil || keys["linux"] != nil:
		return fromOCI(target, raw)
	}
	return nil, &InputError{Target: target, Reason: "neither an OCI config.json (no ociVersion, process or linux) nor docker inspect output (no HostConfig): give a runtime bundle's config.json or the output of docker inspect"}
}

// typeError turns a decoding error of one object into an InputError naming
// the field.
func typeError(target string, err error) error {
	ie := &InputError{Target: target, Reason: err.Error()}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		ie.Reason = fmt.Sprintf("%s: expected %s, got a JSON %s", ute.Field, ute.Type, ute.Value)
		ie.off = ute.Offset
	}
	return ie
}

func kind(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	switch {
	case len(t) == 0:
		return "nothing"
	case t[0] == '"':
		return "a string"
	case t[0] == '[':
		return "an array"
	case t[0] == 'n':
		return "null"
	case t[0] == 't' || t[0] == 'f':
		return "a boolean"
	}
	return "a number"
}

// jsonError locates a syntax error by line and column.
func jsonError(target string, data []byte, err error) error {
	ie := &InputError{Target: target, Reason: "not valid JSON: " + err.Error()}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se) && se.Offset >= int64(len(data)):
		ie.Line, ie.Column = position(data, int64(len(data)))
		ie.Reason = "not valid JSON: the input ends in the middle of a value"
	case errors.As(err, &se):
		// The decoder counts the offending byte as read.
		ie.Line, ie.Column = position(data, se.Offset-1)
	}
	return ie
}

// position converts a byte offset into a 1-based line and column. For a
// type error the decoder's offset is the end of the offending value.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}
