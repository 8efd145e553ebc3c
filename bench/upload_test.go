package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// countingBackend is a CPU backend whose upload counters grow by 1 MB and 1 ms at every
// read, so that every phase shows an upload.
type countingBackend struct {
	gpu.Backend
	reads atomic.Int64
}

func (c *countingBackend) Uploads() (int64, time.Duration) {
	n := c.reads.Add(1)
	return n * 1e6, time.Duration(n) * time.Millisecond
}

// TestRunReportsUploads: the report carries each phase's upload (bytes and rate) in its JSON
// and as "upload PHASE" rows of the table, and the open's upload; the existing rows stay.
func TestRunReportsUploads(t *testing.T) {
	b := &countingBackend{Backend: backends.DefaultCPU()}
	defer b.Close()
	rep, err := Run(context.Background(), Options{ModelDir: golden.TinyModel(t), Sizes: []int{32}, Steps: 1, PeakReps: -1, Backend: b, Single: true})
	if err != nil {
		t.Fatal(err)
	}
	if u := rep.OpenUpload; u == nil || u.Bytes != 1e6 || u.GBps != 1 {
		t.Errorf("open upload %+v, want 1 MB at 1 GB/s", u)
	}
	enc := rep.Runs[0].Phase("encode").Upload
	if enc == nil || enc.Bytes <= 0 || enc.GBps <= 0 {
		t.Errorf("encode upload %+v", enc)
	}
	raw, err := json.Marshal(rep)
	if err != nil || !strings.Contains(string(raw), `"upload":{"bytes":`) || !strings.Contains(string(raw), `"open_upload"`) {
		t.Errorf("JSON without uploads: %v", err)
	}
	var tab bytes.Buffer
	if err := rep.WriteTable(&tab); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"upload encode", "upload total", "GB/s", "Weights copied to the device at open", "peak RSS (VmHWM)"} {
		if !strings.Contains(tab.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, tab.String())
		}
	}
	var none countingBackend // a backend without uploads: no rows
	if m := uploadsNow(none.Backend); m != (uploadMark{}) {
		t.Errorf("uploadsNow of a nil CPU backend: %+v", m)
	}
}

// TestUploadReadTime: the reading of the weight files is reported apart from the copies.
func TestUploadReadTime(t *testing.T) {
	m0 := uploadMark{bytes: 1e9, d: time.Second, read: 100 * time.Millisecond, wait: 50 * time.Millisecond}
	m := uploadMark{bytes: 3e9, d: 2 * time.Second, read: 600 * time.Millisecond, wait: 250 * time.Millisecond}
	u := m.since(m0)
	if u.Bytes != 2e9 || u.GBps != 2 || u.ReadS != 0.5 || u.WaitS != 0.2 {
		t.Errorf("since = %+v, want 2 GB at 2 GB/s, read 0.5 s, wait 0.2 s", u)
	}
	if got, want := u.String(), "2.00 GB at 2 GB/s, read 0.50 s"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}
