// Package images keeps the root filesystems that container backends use as
// their operating system, in a local content-addressed cache: golem-box never
// pulls from a registry.
//
// An image enters the cache by import (a root filesystem directory or
// tarball, an OCI image layout, or a `docker save` tarball, read with
// go-containerregistry) or by BuildFromHost (host binaries and the shared
// libraries they need). Every source becomes one tar stream that is hashed
// and extracted at once; the image's id is that sha256 (or, for OCI and
// Docker images, the image's own digest). Runs use the extracted tree
// read-only, in place: nothing is copied per run.
//
// Threat model: image content is untrusted. Extraction writes through an
// os.Root on the new image directory, so no entry (a "../" name, an absolute
// or relative symbolic link laid down earlier, a hard link) can write outside
// it; device nodes and FIFOs are skipped, setuid and setgid bits dropped,
// and sizes and entry counts bounded.
package images
