package bench

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// procStatus holds the memory fields of /proc/self/status, in bytes.
type procStatus struct {
	VmRSS, VmHWM, RssAnon, RssFile uint64
}

// readStatus reads /proc/self/status; ok is false where it does not exist (not Linux).
func readStatus() (procStatus, bool) {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return procStatus{}, false
	}
	var st procStatus
	fields := map[string]*uint64{"VmRSS:": &st.VmRSS, "VmHWM:": &st.VmHWM, "RssAnon:": &st.RssAnon, "RssFile:": &st.RssFile}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	found := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		if dst, ok := fields[f[0]]; ok {
			if kb, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				*dst = kb << 10
				found = true
			}
		}
	}
	return st, found
}

// resetPeakRSS resets the kernel's VmHWM of this process to the current RSS (Linux ≥ 4.0:
// writing 5 to /proc/self/clear_refs). It reports whether that worked.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// sampler records the largest RssAnon (private anonymous memory: the heap and other
// allocations, not the mapped weight files) seen by polling /proc/self/status.
type sampler struct {
	mu      sync.Mutex
	maxAnon uint64
	maxRSS  uint64
	stop    chan struct{}
	done    chan struct{}
}

// startSampler polls every interval until stop is called.
func startSampler(interval time.Duration) *sampler {
	s := &sampler{stop: make(chan struct{}), done: make(chan struct{})}
	s.sample()
	go func() {
		defer close(s.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
	return s
}

func (s *sampler) sample() {
	st, ok := readStatus()
	if !ok {
		return
	}
	s.mu.Lock()
	s.maxAnon = max(s.maxAnon, st.RssAnon)
	s.maxRSS = max(s.maxRSS, st.VmRSS)
	s.mu.Unlock()
}

// finish stops polling, takes a last sample and returns the peaks (bytes).
func (s *sampler) finish() (maxAnon, maxRSS uint64) {
	close(s.stop)
	<-s.done
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxAnon, s.maxRSS
}

// loadAverage returns the 1, 5 and 15 minute load averages (nil where unknown).
func loadAverage() []float64 {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return nil
	}
	var out []float64
	for _, s := range f[:3] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "".
func cpuModel() string {
	raw, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// majorFaults returns the process's major page faults so far (field 12 of /proc/self/stat):
// pages that had to be read from disk, such as mapped weights not in the page cache.
func majorFaults() (uint64, bool) {
	raw, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')') // the command name may contain spaces and parentheses
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state)
	if len(f) < 10 {
		return 0, false
	}
	n, err := strconv.ParseUint(f[9], 10, 64)
	return n, err == nil
}
