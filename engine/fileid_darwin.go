package engine

import (
	"fmt"
	"os"
	"syscall"
)

// fileIdentity names the file behind st for the fingerprint records: its device, inode and
// change time, which a copy, a replacement or an in-place rewrite all change.
func fileIdentity(st os.FileInfo) string {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	sec, nsec := s.Ctimespec.Unix()
	return fmt.Sprintf("%d:%d:%d.%d", s.Dev, s.Ino, sec, nsec)
}
