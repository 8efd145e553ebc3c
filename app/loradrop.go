package app

import (
	"encoding/binary"
	"io"

	"kleinbild/internal/safefile"
)

// maxSafetensorsHeader is the largest safetensors header (JSON) the sniffer accepts, as
// the safetensors format itself limits it (100 MB).
const maxSafetensorsHeader = 100 << 20

// isSafetensors reports whether the file at path holds a safetensors file, by its content:
// an 8-byte little-endian header length that fits the file, followed by a JSON object. The
// name does not count (a dropped LoRA may be named anything; an image is never taken for
// one). Only regular files are opened, so a FIFO never blocks (any goroutine).
func isSafetensors(path string) bool {
	f, st, err := safefile.OpenRegular(path, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [9]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return false
	}
	n := binary.LittleEndian.Uint64(head[:8])
	return n >= 2 && n <= maxSafetensorsHeader && n <= uint64(st.Size()-8) && head[8] == '{'
}

// dropAdapters takes the adapter files among dropped paths (by content, off the UI
// goroutine) and adds them; the other paths, with errs, go to rest (the references'
// handling) on the UI goroutine. The channel is closed once both are applied.
func (s *adaptersSection) dropAdapters(paths []string, errs []error, rest func([]string, []error) <-chan struct{}) <-chan struct{} {
	done := make(chan struct{})
	sh := s.sh
	sh.bg.Add(1)
	go func() {
		defer sh.bg.Done()
		var adapters, others []string
		for _, p := range paths {
			if isSafetensors(p) {
				adapters = append(adapters, p)
			} else {
				others = append(others, p)
			}
		}
		sh.post(func() {
			var waits []<-chan struct{}
			if len(adapters) > 0 {
				waits = append(waits, s.addFiles(adapters, true))
			}
			if len(others) > 0 || len(errs) > 0 || len(adapters) == 0 {
				waits = append(waits, rest(others, errs))
			}
			go func() { // not in sh.bg: a post dropped at shutdown would keep it waiting
				for _, w := range waits {
					<-w
				}
				close(done)
			}()
		})
	}()
	return done
}
