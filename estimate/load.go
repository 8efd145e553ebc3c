package estimate

import (
	"fmt"
	"math"
	"time"
)

// DefaultLoadBytesPerSec is the read rate assumed for loading a model before one was
// measured (RecordLoad): a slow disk's, so that a first estimate errs long rather than short.
const DefaultLoadBytesPerSec = 100e6

// Bounds on a measured load rate: a measurement outside them (a load served from the page
// cache in a millisecond, a stall) is clamped.
const (
	minLoadBytesPerSec = 10e6
	maxLoadBytesPerSec = 20e9
)

// minLoadSampleBytes is the smallest load that measures a read rate: a smaller model's open
// is mostly fixed cost (the tiny test model's 3.6 MB read as 43 MB/s, which would have priced
// klein-4B's load at about 6 minutes).
const minLoadSampleBytes = 256 << 20

// LoadRate is the calibrated model read rate in bytes per second, or
// DefaultLoadBytesPerSec when none was measured.
func (c Calibration) LoadRate() float64 {
	if r := c.LoadBytesPerSec; r > 0 && !math.IsInf(r, 0) && !math.IsNaN(r) {
		return r
	}
	return DefaultLoadBytesPerSec
}

// LoadBytes is what loading the model reads: the transformer's, the VAE's and the text
// encoder's weight files.
func (m Model) LoadBytes() int64 {
	return m.transformerBytes() + m.vaeBytes() + m.encoderFileBytes()
}

// LoadSeconds is the time to load the model at c's read rate (LoadRate).
func (m Model) LoadSeconds(c Calibration) float64 {
	return float64(m.LoadBytes()) / c.LoadRate()
}

// WithLoad returns c with a measured load of bytes in d folded into its read rate (the mean
// of the previous rate, when there is one, and this one, clamped to a plausible range). A
// load of under 256 MiB is refused: its time is mostly fixed cost, not reading.
func (c Calibration) WithLoad(bytes int64, d time.Duration) (Calibration, error) {
	if bytes <= 0 || d <= 0 {
		return c, fmt.Errorf("load of %d bytes in %v: not a measurement", bytes, d)
	}
	if bytes < minLoadSampleBytes {
		return c, fmt.Errorf("load of %d bytes: too small to measure a read rate (at least %d)", bytes, minLoadSampleBytes)
	}
	r := min(max(float64(bytes)/d.Seconds(), minLoadBytesPerSec), maxLoadBytesPerSec)
	if old := c.LoadBytesPerSec; old > 0 && !math.IsInf(old, 0) && !math.IsNaN(old) {
		r = (old + r) / 2
	}
	c.LoadBytesPerSec = r
	return c, nil
}

// RecordLoad folds a measured model load (bytes read in d) into the calibration stored at
// path (read through the guarded reader, written atomically) and returns it. Without a
// stored calibration there is nothing to add to: that is an error.
func RecordLoad(path string, bytes int64, d time.Duration) (Calibration, error) {
	c, err := LoadCalibration(path)
	if err != nil {
		return Calibration{}, fmt.Errorf("record load: %w", err)
	}
	if c, err = c.WithLoad(bytes, d); err != nil {
		return Calibration{}, fmt.Errorf("record load: %w", err)
	}
	if err := c.Save(path); err != nil {
		return Calibration{}, err
	}
	return c, nil
}
