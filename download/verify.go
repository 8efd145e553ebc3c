package download

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"

	"kleinbild/internal/safefile"
)

// checkFile verifies the file at path against f: its size, then the sha256 of LFS files or
// the git blob id of others. progress (may be nil) receives the bytes hashed so far. It
// returns an error wrapping ErrChecksum on a mismatch.
func checkFile(ctx context.Context, path string, f RemoteFile, progress func(done int64)) error {
	fh, _, err := safefile.OpenRegular(path, 0)
	if err != nil {
		return err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return err
	}
	if st.Size() != f.Size {
		return &ChecksumError{Path: f.Path, Detail: fmt.Sprintf("%d bytes, expected %d", st.Size(), f.Size)}
	}
	var h hash.Hash
	var want string
	switch {
	case f.SHA256 != "":
		h, want = sha256.New(), f.SHA256
	case f.BlobID != "":
		h, want = sha1.New(), f.BlobID
		fmt.Fprintf(h, "blob %d\x00", f.Size)
	default:
		return nil // only the size is known
	}
	if err := hashReader(ctx, h, fh, progress); err != nil {
		return fmt.Errorf("hash %s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		kind := "sha256"
		if f.SHA256 == "" {
			kind = "git blob id"
		}
		return &ChecksumError{Path: f.Path, Detail: fmt.Sprintf("%s %s, expected %s", kind, got, want)}
	}
	return nil
}

// hashReader feeds r into h in 4 MiB reads, checking ctx between reads.
func hashReader(ctx context.Context, h hash.Hash, r io.Reader, progress func(done int64)) error {
	buf := make([]byte, 4<<20)
	var done int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Read(buf)
		h.Write(buf[:n])
		done += int64(n)
		if progress != nil && n > 0 {
			progress(done)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// gitBlobID is git's object id of a blob: sha1("blob <size>\x00" + content).
func gitBlobID(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}
