package cli

import (
	"errors"
	"fmt"
	"io"

	"kleinbild/engine"
	"kleinbild/estimate"
	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// fitDevice checks, before the model opens, that every buffer of req fits the limits of the
// device b (estimate.CheckDevice). A device the user chose (chosen: --backend or
// $KLEINBILD_BACKEND) that cannot hold them is an error; the default device gives way to the
// CPU with a notice on stderr, and the CPU backend is returned in its place (b closed). A
// model whose shapes cannot be read is left to the run to report.
func fitDevice(b gpu.Backend, chosen bool, src engine.Source, req estimate.Request, stderr io.Writer) (gpu.Backend, error) {
	if b.Info().Kind == gpu.KindCPU {
		return b, nil
	}
	m, err := estimate.ForSource(src)
	if err != nil {
		return b, nil
	}
	err = estimate.CheckDevice(m, req, b.Info())
	if err == nil {
		return b, nil
	}
	if chosen {
		return b, fmt.Errorf("does not fit on the compute device: %w", err)
	}
	cpu := backends.DefaultCPU()
	problem := err.Error()
	if fe := (*estimate.FitError)(nil); errors.As(err, &fe) {
		problem = fe.Problem()
	}
	fmt.Fprintf(stderr, "Note: %s; running on the CPU (%s) instead\n", problem, cpu.Name())
	b.Close()
	return cpu, nil
}

// deviceChosen reports whether the user named the device (--backend id, or
// $KLEINBILD_BACKEND other than "default").
func deviceChosen(id string) bool {
	c, err := backends.Resolve(id)
	return err != nil || c.ID != ""
}
