package sandbox

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
)

// Defaults for Read, after seed 004's read tool.
const (
	DefaultReadLines = 2000
	DefaultReadBytes = 200_000
	// MaxImageBytes bounds an image returned whole.
	MaxImageBytes = 20 << 20
	// DefaultMaxFileBytes bounds ReadFile and Edit when files.max_file_bytes
	// is not set: they hold the whole file in memory.
	DefaultMaxFileBytes = 64 << 20
)

// Result types of Read.
const (
	TypeText   = "text"
	TypeImage  = "image"
	TypeBinary = "binary"
)

// ReadOptions page through a text file.
type ReadOptions struct {
	// Offset is the first line to return, counting from 1; 0 means 1.
	Offset int `json:"offset,omitempty"`
	// Limit is the number of lines to return; 0 means DefaultReadLines.
	Limit int `json:"limit,omitempty"`
	// MaxBytes caps the text returned; 0 means DefaultReadBytes.
	MaxBytes int `json:"max_bytes,omitempty"`
}

// ReadResult is what Read returns. Text files fill Text and the line
// counts; images fill Data and MIMEType; other binary files only say so.
type ReadResult struct {
	Path     string `json:"path"`
	Type     string `json:"type"`
	MIMEType string `json:"mime_type"`
	// Bytes is the size of the file.
	Bytes int64  `json:"bytes"`
	Text  string `json:"text,omitempty"`
	Data  []byte `json:"data,omitempty"`
	// StartLine is the first line returned (1-based); OutputLines how many.
	StartLine   int `json:"start_line,omitempty"`
	OutputLines int `json:"output_lines,omitempty"`
	TotalLines  int `json:"total_lines,omitempty"`
	// Truncated says that the file goes on; TruncatedBy is "lines" or "bytes".
	Truncated   bool   `json:"truncated"`
	TruncatedBy string `json:"truncated_by,omitempty"`
}

// Read reads a file for a model: a window of lines of a text file, or an
// image (detected by content) as bytes with its MIME type.
func (f *FS) Read(unsafePath string, opt ReadOptions) (*ReadResult, error) {
	const op = "read"
	fh, fi, l, err := f.openRuled(op, unsafePath)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	size := fi.Size()
	br := bufio.NewReaderSize(fh, 64<<10)
	head, _ := br.Peek(512)
	mime := http.DetectContentType(head)
	res := &ReadResult{Path: l.virtual, MIMEType: mime, Bytes: size}
	switch {
	case strings.HasPrefix(mime, "image/"):
		if size > MaxImageBytes {
			return nil, f.tooLarge(op, unsafePath, size, MaxImageBytes)
		}
		res.Type = TypeImage
		res.Data, err = io.ReadAll(io.LimitReader(br, MaxImageBytes+1))
		if err != nil {
			return nil, f.fsError(op, unsafePath, err)
		}
		return res, nil
	case bytes.IndexByte(head, 0) >= 0:
		res.Type = TypeBinary
		return res, nil
	}
	res.Type = TypeText
	if err := readLines(br, opt, res); err != nil {
		return nil, f.fsError(op, unsafePath, err)
	}
	return res, nil
}

// openRuled opens a file for reading and applies its mount's suffix and
// size rules.
func (f *FS) openRuled(op, unsafePath string) (*os.File, fs.FileInfo, *loc, error) {
	fh, fi, l, err := f.openRead(op, unsafePath)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := f.checkSuffix(op, unsafePath, l.virtual, l); err != nil {
		fh.Close()
		return nil, nil, nil, err
	}
	if lim := int64(l.res.Files.MaxFileBytes); lim > 0 && fi.Size() > lim {
		fh.Close()
		return nil, nil, nil, f.tooLarge(op, unsafePath, fi.Size(), lim)
	}
	return fh, fi, l, nil
}

// readLines streams the file once: it keeps the requested window of lines,
// within the byte cap, and counts every line.
func readLines(r *bufio.Reader, opt ReadOptions, res *ReadResult) error {
	start, limit, maxBytes := max(opt.Offset, 1), opt.Limit, opt.MaxBytes
	if limit <= 0 {
		limit = DefaultReadLines
	}
	if maxBytes <= 0 {
		maxBytes = DefaultReadBytes
	}
	var out bytes.Buffer
	full, inLine := false, false
	for {
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			// A line longer than the buffer arrives in pieces: count it once.
			newLine := !inLine
			if newLine {
				res.TotalLines++
			}
			inLine = chunk[len(chunk)-1] != '\n'
			switch {
			case full || res.TotalLines < start:
			case newLine && res.OutputLines >= limit:
				full, res.Truncated, res.TruncatedBy = true, true, "lines"
			case out.Len()+len(chunk) > maxBytes:
				if newLine && out.Len() < maxBytes {
					res.OutputLines++
				}
				out.Write(chunk[:maxBytes-out.Len()])
				full, res.Truncated, res.TruncatedBy = true, true, "bytes"
			default:
				out.Write(chunk)
				if newLine {
					res.OutputLines++
				}
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if res.OutputLines > 0 || res.Truncated {
		res.StartLine = start
	}
	res.Text = out.String()
	return nil
}

// ReadFile returns a whole file's bytes, bounded by files.max_file_bytes (or
// DefaultMaxFileBytes when unset). It applies the same checks as Read.
func (f *FS) ReadFile(unsafePath string) ([]byte, error) {
	return f.readFile("read", unsafePath)
}

func (f *FS) readFile(op, unsafePath string) ([]byte, error) {
	fh, fi, l, err := f.openRead(op, unsafePath)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return f.readOpened(op, unsafePath, l, fh, fi)
}

// readOpened reads a whole file opened at l, with the suffix and size rules.
func (f *FS) readOpened(op, unsafePath string, l *loc, fh *os.File, fi fs.FileInfo) ([]byte, error) {
	if err := f.checkSuffix(op, unsafePath, l.virtual, l); err != nil {
		return nil, err
	}
	lim := int64(l.res.Files.MaxFileBytes)
	if lim <= 0 {
		lim = DefaultMaxFileBytes
	}
	if fi.Size() > lim {
		return nil, f.tooLarge(op, unsafePath, fi.Size(), lim)
	}
	data, err := readAtMost(fh, fi.Size(), lim)
	if err != nil {
		return nil, f.fsError(op, unsafePath, err)
	}
	if int64(len(data)) > lim {
		return nil, f.tooLarge(op, unsafePath, int64(len(data)), lim)
	}
	return data, nil
}

// readAtMost reads r to its end or to lim+1 bytes, sizing the buffer from
// the size fstat gave (as os.ReadFile does) but never trusting it: a file
// that grows while it is read is still bounded.
func readAtMost(r io.Reader, size, lim int64) ([]byte, error) {
	data := make([]byte, 0, min(size, lim)+512)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):min(int64(cap(data)), lim+1)])
		data = data[:len(data)+n]
		if int64(len(data)) > lim {
			return data, nil
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
