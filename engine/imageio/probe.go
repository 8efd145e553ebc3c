package imageio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"io"

	"kleinbild/internal/safefile"
)

// Probe checks the image file at path without decoding its pixels: a regular file of at
// most MaxFileBytes, the header's limits (CheckHeader, with check) and, for PNG and JPEG,
// that the file is whole: every PNG chunk complete with its checksum right up to IEND,
// every JPEG segment complete up to EOI. A truncated image is refused when it is chosen
// (issue 36 item 14: a cut PNG became a reference with a broken thumbnail). Errors do not
// name the file.
func Probe(path string, check func(w, h int) error) (image.Config, error) {
	f, st, err := safefile.OpenRegular(path, MaxFileBytes)
	if err != nil {
		return image.Config{}, pathless(err, path)
	}
	defer f.Close()
	if st.Size() == 0 {
		return image.Config{}, errors.New("is empty")
	}
	cfg, format, err := CheckHeader(bufio.NewReaderSize(f, 64<<10), check)
	if err != nil {
		return cfg, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return cfg, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	switch format {
	case "png":
		err = pngComplete(r)
	case "jpeg":
		err = jpegComplete(r)
	}
	if err != nil {
		return cfg, fmt.Errorf("%s image %w", format, err)
	}
	return cfg, nil
}

// errTruncated says that the file ends before the image does.
var errTruncated = errors.New("is truncated")

// pngComplete walks the chunks of the PNG file r up to IEND, checking each one's CRC.
func pngComplete(r *bufio.Reader) error {
	var head [8]byte
	if _, err := io.ReadFull(r, head[:]); err != nil || string(head[:]) != pngSignature {
		return errTruncated
	}
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return fmt.Errorf("%w (it ends without its IEND chunk)", errTruncated)
		}
		n, typ := binary.BigEndian.Uint32(head[:4]), string(head[4:])
		if n > 1<<31-1 {
			return fmt.Errorf("is corrupt: chunk %q claims %d bytes", typ, n)
		}
		crc := crc32.NewIEEE()
		crc.Write(head[4:])
		if _, err := io.CopyN(crc, r, int64(n)); err != nil {
			return fmt.Errorf("%w (in its %s chunk)", errTruncated, typ)
		}
		var sum [4]byte
		if _, err := io.ReadFull(r, sum[:]); err != nil {
			return fmt.Errorf("%w (in its %s chunk)", errTruncated, typ)
		}
		if binary.BigEndian.Uint32(sum[:]) != crc.Sum32() {
			return fmt.Errorf("is corrupt: its %s chunk fails its checksum", typ)
		}
		if typ == "IEND" {
			return nil
		}
	}
}

// jpegComplete walks the segments of the JPEG file r, and the entropy-coded data after each
// start of scan, up to the end-of-image marker.
func jpegComplete(r *bufio.Reader) error {
	var soi [2]byte
	if _, err := io.ReadFull(r, soi[:]); err != nil || soi != [2]byte{0xff, 0xd8} {
		return errTruncated
	}
	m, err := jpegMarker(r)
	for ; err == nil; m, err = jpegMarker(r) {
		switch {
		case m == 0xd9: // end of image
			return nil
		case m == 0x01 || m >= 0xd0 && m <= 0xd7: // no length
			continue
		}
		var l [2]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return fmt.Errorf("%w (it ends without its end-of-image marker)", errTruncated)
		}
		n := int(binary.BigEndian.Uint16(l[:])) - 2
		if n < 0 {
			return fmt.Errorf("is corrupt: marker %#x has a length under 2", m)
		}
		if _, err := r.Discard(n); err != nil {
			return fmt.Errorf("%w (it ends without its end-of-image marker)", errTruncated)
		}
		if m == 0xda { // start of scan: entropy-coded data up to the next marker
			if err := skipScan(r); err != nil {
				return err
			}
		}
	}
	return err
}

// jpegMarker reads the next marker (0xff, fill bytes, then its code) and returns its code.
func jpegMarker(r *bufio.Reader) (byte, error) {
	b, err := r.ReadByte()
	if err != nil {
		return 0, fmt.Errorf("%w (it ends without its end-of-image marker)", errTruncated)
	}
	if b != 0xff {
		return 0, fmt.Errorf("is corrupt: %#x where a marker belongs", b)
	}
	for b == 0xff {
		if b, err = r.ReadByte(); err != nil {
			return 0, fmt.Errorf("%w (it ends without its end-of-image marker)", errTruncated)
		}
	}
	return b, nil
}

// skipScan reads entropy-coded data up to the marker after it (not a stuffed 0xff00 nor
// a restart marker), leaving that marker to be read next.
func skipScan(r *bufio.Reader) error {
	for {
		if _, err := r.ReadSlice(0xff); errors.Is(err, bufio.ErrBufferFull) {
			continue
		} else if err != nil {
			return fmt.Errorf("%w (in its image data)", errTruncated)
		}
		if err := r.UnreadByte(); err != nil {
			return err
		}
		next, err := r.Peek(2)
		if err != nil {
			return fmt.Errorf("%w (in its image data)", errTruncated)
		}
		if c := next[1]; c != 0 && c != 0xff && (c < 0xd0 || c > 0xd7) {
			return nil
		}
		if _, err := r.Discard(1); err != nil {
			return err
		}
	}
}
