package sandbox

import (
	"bufio"
	"net/http"
)

// Attachment is a file a worker hands to another (seed 003, "Attachment
// Handling"), checked as readable in the caller's sandbox.
type Attachment struct {
	// Path is the virtual path, after following symbolic links.
	Path string `json:"path"`
	// Host is where the file is on the host, for backends that pass it on.
	Host string `json:"host"`
	// Mount is the virtual path of the mount it is in.
	Mount    string `json:"mount"`
	Bytes    int64  `json:"bytes"`
	MIMEType string `json:"mime_type"`
}

// Attach checks that a file can be handed to another worker: it must be a
// regular file the caller could read, with an allowed suffix and within
// the size limit of its mount.
func (f *FS) Attach(unsafePath string) (*Attachment, error) {
	const op = "attach"
	fh, fi, l, err := f.openRuled(op, unsafePath)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	head, _ := bufio.NewReaderSize(fh, 512).Peek(512)
	return &Attachment{Path: l.virtual, Host: l.res.Host, Mount: l.res.Target, Bytes: fi.Size(),
		MIMEType: http.DetectContentType(head)}, nil
}
