package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interruptContext is a context cancelled by SIGINT (Ctrl+C) or SIGTERM (what `kill`,
// `timeout`, systemd and `docker stop` send); stop restores their default action. A file
// being written when either comes is finished, where SIGTERM's default action killed the
// process and left the half-written temporary file beside the output (issue 37 item 18).
// Every command takes its signals from here (TestSignalsHandledInOnePlace).
func interruptContext() (ctx context.Context, stop context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
