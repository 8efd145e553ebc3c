package bench

import (
	"fmt"
	"time"

	"kleinbild/gpu"
)

// Upload is what a phase copied to the device: weight bytes and the rate of the host time
// the copies took (gpu/webgpu's Uploads). CPU backends view the weights in place: none.
type Upload struct {
	Bytes int64   `json:"bytes"`
	GBps  float64 `json:"gb_per_s"`
	// ReadS is the part of the time spent reading the weights into staging buffers (page
	// faults of the mapped files), WaitS the part spent waiting for the device's copies.
	ReadS float64 `json:"read_s,omitempty"`
	WaitS float64 `json:"wait_s,omitempty"`
}

// uploader is a backend that counts its weight uploads (the WebGPU backend).
type uploader interface {
	Uploads() (bytes int64, d time.Duration)
}

// uploadTimer is an uploader that splits its time (webgpu.Backend.UploadTimes).
type uploadTimer interface {
	UploadTimes() (read, wait time.Duration)
}

// uploadMark is a backend's upload counters at one moment.
type uploadMark struct {
	bytes      int64
	d          time.Duration
	read, wait time.Duration
}

// uploadsNow reads b's upload counters (zero for backends that upload nothing).
func uploadsNow(b gpu.Backend) uploadMark {
	var m uploadMark
	if u, ok := b.(uploader); ok {
		m.bytes, m.d = u.Uploads()
	}
	if u, ok := b.(uploadTimer); ok {
		m.read, m.wait = u.UploadTimes()
	}
	return m
}

// since is the upload between m0 and m, nil when nothing was uploaded.
func (m uploadMark) since(m0 uploadMark) *Upload {
	n, d := m.bytes-m0.bytes, m.d-m0.d
	if n <= 0 {
		return nil
	}
	u := &Upload{Bytes: n, ReadS: (m.read - m0.read).Seconds(), WaitS: (m.wait - m0.wait).Seconds()}
	if d > 0 {
		u.GBps = float64(n) / 1e9 / d.Seconds()
	}
	return u
}

// String is "7.80 GB at 12.3 GB/s" ("3.6 MB at 0.84 GB/s" below a gigabyte), with
// ", read 0.40 s" when the reading of the files was timed.
func (u *Upload) String() string {
	if u == nil {
		return ""
	}
	s := fmt.Sprintf("%.2f GB at %.3g GB/s", float64(u.Bytes)/1e9, u.GBps)
	if u.Bytes < 1e9 {
		s = fmt.Sprintf("%.1f MB at %.3g GB/s", float64(u.Bytes)/1e6, u.GBps)
	}
	if u.ReadS > 0 {
		s += fmt.Sprintf(", read %.2f s", u.ReadS)
	}
	return s
}

// uploadRows adds the table's upload rows: one per phase that uploaded anything in some run.
func uploadRows(r *Report, row func(name string, cell func(run *Generation) string)) {
	var names []string
	seen := map[string]bool{}
	for _, run := range r.Runs {
		for _, p := range run.Phases {
			if p.Upload != nil && !seen[p.Name] {
				seen[p.Name] = true
				names = append(names, p.Name)
			}
		}
	}
	for _, name := range names {
		row("upload "+name, func(run *Generation) string {
			for _, p := range run.Phases {
				if p.Name == name {
					return p.Upload.String()
				}
			}
			return ""
		})
	}
}
