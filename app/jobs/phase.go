package jobs

// Phase is where the app's runner stands; the widgets that follow the run (Generate,
// the progress bar, the model button, Quit's question) change with it.
type Phase int

const (
	Idle       Phase = iota // nothing runs
	Running                 // a job runs; Generate is Cancel
	Cancelling              // the running job was cancelled and has not stopped yet
)
