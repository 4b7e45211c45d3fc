package docker

import (
	"context"
	"testing"

	"github.com/golem-box/golem-box/runner/runnertest"
	"github.com/golem-box/golem-box/runner/runstate"
	"github.com/moby/moby/client"
	"github.com/stretchr/testify/require"
)

// TestEngineLostMidRun: the engine goes away while the command runs; the
// run ends with an error that says so, and the container (which the real
// engine still runs) is then removed through the real socket.
func TestEngineLostMidRun(t *testing.T) {
	real := New(WithStateDir(t.TempDir()))
	cli, err := real.client(context.Background())
	require.NoError(t, err)
	mine := func() []string {
		list, err := cli.ContainerList(context.Background(), client.ContainerListOptions{
			Filters: client.Filters{}.Add("label", LabelOwner+"="+runstate.OwnerStamp())})
		require.NoError(t, err)
		var ids []string
		for _, c := range list.Items {
			ids = append(ids, c.ID)
		}
		return ids
	}
	t.Cleanup(func() {
		for _, id := range mine() {
			real.remove(id)
		}
	})
	p := runnertest.NewProxy(t, "/var/run/docker.sock")
	b := New(WithHost("unix://"+p.Path), WithStateDir(t.TempDir()))
	runnertest.DaemonLost(t, b, p, func() bool { return len(mine()) == 1 })
}
