package imageio

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
)

// EncodeJPEG encodes img as a JPEG at quality (1..100) with m's AUTOMATIC1111 "parameters"
// text (Metadata.Parameters) in a comment segment right after the start marker, which JPEG
// readers show and image tools parse; the text is cut to the segment's 65533-byte limit.
func EncodeJPEG(img image.Image, m Metadata, quality int) ([]byte, error) {
	var body bytes.Buffer
	if err := jpeg.Encode(&body, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("encode JPEG: %w", err)
	}
	raw := body.Bytes()
	comment := []byte(m.Parameters())
	if len(comment) > 0xFFFF-2 {
		comment = comment[:0xFFFF-2]
	}
	out := make([]byte, 0, len(raw)+len(comment)+4)
	out = append(out, raw[:2]...) // SOI
	out = append(out, 0xFF, 0xFE, byte((len(comment)+2)>>8), byte(len(comment)+2))
	out = append(out, comment...)
	return append(out, raw[2:]...), nil
}
