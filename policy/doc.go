// Package policy decides who may do what with a sandbox (seeds 001, 002 and
// 003), on top of the mount model of package mountspec.
//
//   - Ceiling and declarations. The project's golem-box.yaml sandbox is the
//     most the entry worker can have. A worker file (NAME.worker: Markdown
//     with YAML front matter) declares what it needs, by named mounts and/or
//     by a subtree with read-only access. A worker's effective sandbox is
//     its parent's, narrowed by the call, intersected with its declaration
//     (Grant); no declaration means no file access at all. Asking for more
//     than the parent has is an error naming both sides, never a silent
//     narrowing. Delegate walks a whole chain and bounds its depth.
//   - Approvals. Capability and consent are separate: a read-write mount may
//     still need someone to agree to each change (approval: write / delete:
//     preApproved, ask or blocked). Gate is the sandbox.Guard that asks, so
//     that the file tools check every boundary first and consent second, and
//     nothing is written when consent is refused or cannot be asked. Every
//     decision is appended to a JSON-lines log.
//
// Error texts are written for the reader who acts on them: people get the
// file, the field and the fix; a model gets what it may do instead.
//
// This package must not import Docker, containerd or cobra.
package policy
