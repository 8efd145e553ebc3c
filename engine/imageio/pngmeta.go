package imageio

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"kleinbild/engine/schema"
	"kleinbild/internal/atomicfile"
	"kleinbild/internal/safefile"
)

// MetadataKey is the keyword of the iTXt chunk holding the JSON form of Metadata.
const MetadataKey = "kleinbild"

// Reference identifies an input file of a generation (a reference image, the picture
// repainted, the mask) by its path and the SHA-256 of its bytes.
type Reference struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// ModelFile names a model component read from a single file (a GGUF, a BFL or ComfyUI file)
// and its storage types, so that an image can be traced to its model.
type ModelFile struct {
	Component string `json:"component"` // "transformer", "text_encoder" or "vae"
	File      string `json:"file"`      // the file's name
	Types     string `json:"types"`     // storage types, e.g. "Q8_0 x21, F16 x18, Q4_K x2"
}

// Adapter identifies a LoRA/LoKr adapter applied to a generation: the file's name (no
// folder), the SHA-256 of its bytes and its strength.
type Adapter struct {
	File     string  `json:"file"`
	SHA256   string  `json:"sha256"`
	Strength float32 `json:"strength"`
}

// Metadata describes how an image was generated. WritePNG stores it in the PNG.
type Metadata struct {
	// Settings are what made the image (the paths absolute): engine.MetadataRequest makes
	// its request again. The rest is provenance, beside them.
	schema.Settings
	// Hashes are the SHA-256 (hex) of the input files by path: the references, the picture
	// repainted and the mask.
	Hashes     map[string]string
	Model      string // model folder name
	Variant    string // e.g. "distilled" or "base"
	ModelFiles []ModelFile
	Adapters   []Adapter
	Software   string
	Created    time.Time
	Duration   time.Duration // wall time of the generation
	// Precision is the arithmetic of the products when not the exact float32 one ("fast":
	// float16 operands; "" for exact).
	Precision string
}

// Sources are the images m was made from, with their hashes: the references and, for
// inpainting, outpainting and image to image, the picture repainted.
func (m Metadata) Sources() []Reference {
	var out []Reference
	for _, p := range m.References {
		out = append(out, Reference{Path: p, SHA256: m.Hashes[p]})
	}
	if m.Image != "" {
		out = append(out, Reference{Path: m.Image, SHA256: m.Hashes[m.Image]})
	}
	return out
}

// metadataJSON is the stored form: stable snake_case names, the duration in seconds, the
// references and the inpainting settings with their files' hashes. Settings fields it has
// no place for follow it, under their own keys (see MarshalJSON).
type metadataJSON struct {
	Format         int          `json:"format"`
	Prompt         string       `json:"prompt"`
	NegativePrompt string       `json:"negative_prompt,omitempty"`
	Seed           uint64       `json:"seed"`
	Width          int          `json:"width"`
	Height         int          `json:"height"`
	Steps          int          `json:"steps"`
	Guidance       float64      `json:"guidance"`
	Schedule       string       `json:"schedule,omitempty"`
	Noise          string       `json:"noise,omitempty"`
	Model          string       `json:"model,omitempty"`
	Variant        string       `json:"variant,omitempty"`
	ModelFiles     []ModelFile  `json:"model_files,omitempty"`
	References     []Reference  `json:"references,omitempty"`
	Adapters       []Adapter    `json:"adapters,omitempty"`
	Partial        bool         `json:"adapters_partial,omitempty"`
	Software       string       `json:"software,omitempty"`
	Created        *time.Time   `json:"created,omitempty"`
	DurationS      float64      `json:"duration_s,omitempty"`
	Inpaint        *inpaintJSON `json:"inpaint,omitempty"`
	Precision      string       `json:"precision,omitempty"`
}

// inpaintJSON is the stored form of an inpainting, outpainting or image-to-image
// generation: the mode, the picture repainted and the mask (their files and hashes; no mask
// when outpainting built it) and the settings.
type inpaintJSON struct {
	Mode        string     `json:"mode"` // "inpaint", "outpaint" or "img2img"
	Image       Reference  `json:"image"`
	Mask        *Reference `json:"mask,omitempty"`
	Strength    float64    `json:"strength"`
	MaskCrop    int        `json:"mask_crop,omitempty"`
	Outpaint    []int      `json:"outpaint,omitempty"` // left, top, right, bottom px
	RawUnmasked bool       `json:"raw_unmasked,omitempty"`
}

// layoutKeys are the Settings keys that metadataJSON stores in places of its own.
var layoutKeys = map[string]bool{
	"prompt": true, "negative_prompt": true, "seed": true, "width": true, "height": true, "steps": true,
	"guidance": true, "schedule": true, "noise": true, "references": true, "adapters_partial": true,
	"image": true, "mask": true, "strength": true, "mask_crop": true, "raw_unmasked": true, "outpaint": true,
}

// metadataFormat is the version of the JSON layout written by WritePNG.
const metadataFormat = 1

// MarshalJSON encodes m in the layout stored in the PNG chunk: metadataJSON, then the
// Settings fields it has no place for (none yet), under Settings' keys.
func (m Metadata) MarshalJSON() ([]byte, error) {
	if m.Image != "" && (math.IsNaN(m.Strength) || math.IsInf(m.Strength, 0)) {
		return nil, fmt.Errorf("metadata: strength %v is not a finite number", m.Strength)
	}
	if math.IsNaN(m.Guidance) || math.IsInf(m.Guidance, 0) {
		return nil, fmt.Errorf("metadata: guidance %v is not a finite number", m.Guidance)
	}
	j := metadataJSON{
		Format: metadataFormat, Prompt: m.Prompt, NegativePrompt: m.NegativePrompt, Seed: m.Seed,
		Width: m.Width, Height: m.Height, Steps: m.Steps, Guidance: m.Guidance,
		Schedule: m.Schedule, Noise: m.Noise, Model: m.Model, Variant: m.Variant, ModelFiles: m.ModelFiles,
		Adapters: m.Adapters, Partial: m.AdaptersPartial, Software: m.Software, DurationS: m.Duration.Seconds(),
		Precision: m.Precision,
	}
	for _, p := range m.References {
		j.References = append(j.References, Reference{Path: p, SHA256: m.Hashes[p]})
	}
	if m.Image != "" {
		j.Inpaint = &inpaintJSON{Mode: m.Mode(), Image: Reference{Path: m.Image, SHA256: m.Hashes[m.Image]},
			Strength: m.Strength, MaskCrop: m.MaskCrop, RawUnmasked: m.RawUnmasked}
		if m.Mask != "" {
			j.Inpaint.Mask = &Reference{Path: m.Mask, SHA256: m.Hashes[m.Mask]}
		}
		if o := m.Outpaint; o != nil {
			j.Inpaint.Outpaint = o[:]
		}
	}
	if !m.Created.IsZero() {
		c := m.Created
		j.Created = &c
	}
	out, err := encodeJSON(j)
	if err != nil {
		return nil, err
	}
	return appendOtherSettings(out, m.Settings)
}

// encodeJSON encodes v without HTML escaping (prompts like "cats & dogs" stay readable in
// the file) and without the final newline.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// appendOtherSettings adds to the JSON object obj the keys of s outside layoutKeys, in
// sorted order, so that a new Settings field is saved without a change here.
func appendOtherSettings(obj []byte, s schema.Settings) ([]byte, error) {
	raw, err := encodeJSON(s)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	keys := slices.Sorted(maps.Keys(fields))
	for _, k := range keys {
		if layoutKeys[k] {
			continue
		}
		key, _ := json.Marshal(k)
		obj = append(append(append(append(obj[:len(obj)-1], ','), key...), ':'), fields[k]...)
		obj = append(obj, '}')
	}
	return obj, nil
}

// UnmarshalJSON decodes the layout written by MarshalJSON.
func (m *Metadata) UnmarshalJSON(b []byte) error {
	var j metadataJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if j.Format > metadataFormat {
		return fmt.Errorf("metadata format %d is newer than this program understands (%d)", j.Format, metadataFormat)
	}
	// The settings under their own keys (the layout's top-level ones are Settings'), then
	// those in the layout's places.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	delete(fields, "references")
	rest, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	*m = Metadata{Model: j.Model, Variant: j.Variant, ModelFiles: j.ModelFiles, Adapters: j.Adapters, Software: j.Software,
		Precision: j.Precision}
	if err := json.Unmarshal(rest, &m.Settings); err != nil {
		return err
	}
	add := func(r Reference) string {
		if r.SHA256 != "" {
			if m.Hashes == nil {
				m.Hashes = map[string]string{}
			}
			m.Hashes[r.Path] = r.SHA256
		}
		return r.Path
	}
	for _, r := range j.References {
		m.References = append(m.References, add(r))
	}
	if in := j.Inpaint; in != nil {
		m.Image, m.Strength, m.MaskCrop, m.RawUnmasked = add(in.Image), in.Strength, in.MaskCrop, in.RawUnmasked
		if in.Mask != nil {
			m.Mask = add(*in.Mask)
		}
		if len(in.Outpaint) == 4 {
			m.Outpaint = &[4]int{in.Outpaint[0], in.Outpaint[1], in.Outpaint[2], in.Outpaint[3]}
		}
	}
	if j.Created != nil {
		m.Created = *j.Created
	}
	if d := math.Round(j.DurationS * 1e9); d >= 0 && d < math.MaxInt64 {
		m.Duration = time.Duration(d)
	}
	return nil
}

// Parameters renders m in the "parameters" text layout of the AUTOMATIC1111 web UI, which
// many image tools and galleries read.
func (m Metadata) Parameters() string {
	var b strings.Builder
	b.WriteString(m.Prompt)
	for _, a := range m.Adapters { // A1111's LoRA tags: <lora:name:strength>
		name := strings.TrimSuffix(filepath.Base(a.File), filepath.Ext(a.File))
		fmt.Fprintf(&b, " <lora:%s:%s>", name, strconv.FormatFloat(float64(a.Strength), 'g', -1, 32))
	}
	if m.NegativePrompt != "" {
		b.WriteString("\nNegative prompt: ")
		b.WriteString(m.NegativePrompt)
	}
	fmt.Fprintf(&b, "\nSteps: %d, Sampler: Euler", m.Steps)
	if m.Schedule != "" {
		fmt.Fprintf(&b, ", Schedule type: %s", m.Schedule)
	}
	fmt.Fprintf(&b, ", CFG scale: %s, Seed: %d, Size: %dx%d",
		strconv.FormatFloat(m.Guidance, 'g', -1, 64), m.Seed, m.Width, m.Height)
	if m.Noise != "" {
		fmt.Fprintf(&b, ", Noise: %s", m.Noise)
	}
	if m.Model != "" {
		fmt.Fprintf(&b, ", Model: %s", m.Model)
	}
	if m.Variant != "" {
		fmt.Fprintf(&b, ", Variant: %s", m.Variant)
	}
	if m.Image != "" {
		fmt.Fprintf(&b, ", Denoising strength: %s", strconv.FormatFloat(m.Strength, 'g', -1, 64))
	}
	if m.Precision != "" {
		fmt.Fprintf(&b, ", Precision: %s", m.Precision)
	}
	if m.Software != "" {
		fmt.Fprintf(&b, ", Version: %s", m.Software)
	}
	return b.String()
}

// pngSignature starts every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// WritePNG encodes img as PNG with m embedded and writes it to path with
// atomicfile.WriteOutput: atomically (a temporary file renamed into place: no partial file, an
// existing file survives errors), through symlinks, directly to a device or pipe.
//
// Chunks inserted after IHDR: iTXt "kleinbild" with the JSON of m (the authoritative copy),
// iTXt/tEXt "prompt", "negative_prompt", "seed", "steps", "guidance", "size", "schedule",
// "noise", "model", "Software", "Creation Time", and "parameters" in the AUTOMATIC1111 layout.
// Text that is not Latin-1 goes into iTXt (UTF-8).
func WritePNG(path string, img image.Image, m Metadata) error {
	if img == nil {
		return fmt.Errorf("write %s: no image", path)
	}
	data, err := EncodePNG(img, m)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.WriteOutput(path, func(w *bufio.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// EncodePNG returns the PNG file WritePNG writes.
func EncodePNG(img image.Image, m Metadata) ([]byte, error) {
	js, err := m.MarshalJSON() // not json.Marshal, which would HTML-escape it again
	if err != nil {
		return nil, err
	}
	var enc bytes.Buffer
	if err := png.Encode(&enc, img); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	raw := enc.Bytes()
	// image/png writes the signature, then IHDR (25 bytes: length, type, 13 data bytes, CRC).
	const ihdrEnd = len(pngSignature) + 4 + 4 + 13 + 4
	if len(raw) < ihdrEnd || string(raw[:len(pngSignature)]) != pngSignature || string(raw[12:16]) != "IHDR" {
		return nil, errors.New("encode png: unexpected encoder output")
	}
	var out bytes.Buffer
	out.Grow(len(raw) + 4096)
	out.Write(raw[:ihdrEnd])
	appendITXt(&out, MetadataKey, string(js))
	appendText(&out, "prompt", m.Prompt)
	if m.NegativePrompt != "" {
		appendText(&out, "negative_prompt", m.NegativePrompt)
	}
	appendText(&out, "seed", strconv.FormatUint(m.Seed, 10))
	appendText(&out, "steps", strconv.Itoa(m.Steps))
	appendText(&out, "guidance", strconv.FormatFloat(m.Guidance, 'g', -1, 64))
	appendText(&out, "size", fmt.Sprintf("%dx%d", m.Width, m.Height))
	if m.Schedule != "" {
		appendText(&out, "schedule", m.Schedule)
	}
	if m.Noise != "" {
		appendText(&out, "noise", m.Noise)
	}
	if m.Model != "" {
		appendText(&out, "model", m.Model)
	}
	if m.Software != "" {
		appendText(&out, "Software", m.Software)
	}
	if !m.Created.IsZero() {
		appendText(&out, "Creation Time", m.Created.Format(time.RFC3339))
	}
	appendText(&out, "parameters", m.Parameters())
	out.Write(raw[ihdrEnd:])
	return out.Bytes(), nil
}

// appendChunk writes one PNG chunk (length, type, data, CRC-32 of type and data).
func appendChunk(b *bytes.Buffer, typ string, data []byte) {
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(len(data)))
	copy(hdr[4:], typ)
	b.Write(hdr[:])
	b.Write(data)
	crc := crc32.NewIEEE()
	crc.Write(hdr[4:])
	crc.Write(data)
	binary.BigEndian.PutUint32(hdr[:4], crc.Sum32())
	b.Write(hdr[:4])
}

// appendITXt writes an uncompressed iTXt chunk (no language tag) with UTF-8 text.
func appendITXt(b *bytes.Buffer, key, text string) {
	data := make([]byte, 0, len(key)+5+len(text))
	data = append(data, key...)
	data = append(data, 0, 0, 0) // keyword terminator, compression flag, method
	data = append(data, 0, 0)    // empty language tag, empty translated keyword
	data = append(data, strings.ToValidUTF8(strings.ReplaceAll(text, "\x00", ""), "\uFFFD")...)
	appendChunk(b, "iTXt", data)
}

// appendText writes text as tEXt when it is Latin-1 (like Pillow's PngInfo.add_text),
// otherwise as iTXt. NUL characters, which PNG text cannot hold, are dropped.
func appendText(b *bytes.Buffer, key, text string) {
	text = strings.ReplaceAll(text, "\x00", "")
	latin1 := make([]byte, 0, len(text))
	for _, r := range text {
		if r > 0xFF { // also invalid UTF-8, which decodes as U+FFFD
			appendITXt(b, key, text)
			return
		}
		latin1 = append(latin1, byte(r))
	}
	data := make([]byte, 0, len(key)+1+len(latin1))
	data = append(data, key...)
	data = append(data, 0)
	data = append(data, latin1...)
	appendChunk(b, "tEXt", data)
}

// Limits of the metadata reader.
const (
	maxChunkLen = 1<<31 - 1 // the PNG limit
	maxTextLen  = 16 << 20  // iTXt chunks up to this size are read into memory (larger: skipped)
)

// ReadMetadata reads the generation metadata of the PNG at path. ok is false (with a nil
// error) for a valid PNG without Kleinbild metadata. The whole file is walked and every
// chunk CRC verified, so a damaged or truncated file is reported as an error.
func ReadMetadata(path string) (m Metadata, ok bool, err error) {
	f, _, err := safefile.OpenRegular(path, MaxFileBytes)
	if err != nil {
		return Metadata{}, false, fmt.Errorf("read metadata: %w", err)
	}
	defer f.Close()
	m, ok, err = ReadMetadataFrom(bufio.NewReaderSize(f, 64<<10))
	if err != nil {
		return Metadata{}, false, fmt.Errorf("read metadata of %s: %w", path, err)
	}
	return m, ok, nil
}

// ReadMetadataFrom is ReadMetadata on a PNG stream.
func ReadMetadataFrom(r io.Reader) (m Metadata, ok bool, err error) {
	var sig [8]byte
	if _, err := io.ReadFull(r, sig[:]); err != nil {
		return Metadata{}, false, fmt.Errorf("not a PNG file: %w", noEOF(err))
	}
	if string(sig[:]) != pngSignature {
		return Metadata{}, false, errors.New("not a PNG file (bad signature)")
	}
	var hdr [8]byte
	crc := crc32.NewIEEE()
	var found []byte
	for n := 0; ; n++ {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return Metadata{}, false, fmt.Errorf("chunk %d: truncated file: %w", n, noEOF(err))
		}
		length := binary.BigEndian.Uint32(hdr[:4])
		typ := string(hdr[4:])
		if length > maxChunkLen {
			return Metadata{}, false, fmt.Errorf("chunk %d: length %d exceeds the PNG limit", n, length)
		}
		if !validChunkType(hdr[4:]) {
			return Metadata{}, false, fmt.Errorf("chunk %d: invalid chunk type %q", n, typ)
		}
		if n == 0 && typ != "IHDR" {
			return Metadata{}, false, fmt.Errorf("first chunk is %q, not IHDR", typ)
		}
		crc.Reset()
		crc.Write(hdr[4:])
		var data []byte
		if typ == "iTXt" && found == nil && length <= maxTextLen {
			// Grow with the data actually read, not with the claimed length.
			var buf bytes.Buffer
			if _, err := io.CopyN(&buf, r, int64(length)); err != nil {
				return Metadata{}, false, fmt.Errorf("chunk %d (%s): truncated file: %w", n, typ, noEOF(err))
			}
			data = buf.Bytes()
			crc.Write(data)
		} else if _, err := io.CopyN(crc, r, int64(length)); err != nil {
			return Metadata{}, false, fmt.Errorf("chunk %d (%s): truncated file: %w", n, typ, noEOF(err))
		}
		var sum [4]byte
		if _, err := io.ReadFull(r, sum[:]); err != nil {
			return Metadata{}, false, fmt.Errorf("chunk %d (%s): truncated file: %w", n, typ, noEOF(err))
		}
		if binary.BigEndian.Uint32(sum[:]) != crc.Sum32() {
			return Metadata{}, false, fmt.Errorf("chunk %d (%s): CRC mismatch (file damaged)", n, typ)
		}
		if data != nil && bytes.HasPrefix(data, []byte(MetadataKey+"\x00")) {
			// Only our own chunk must be well-formed; other tools' text is not inspected.
			text, err := parseITXt(data)
			if err != nil {
				return Metadata{}, false, fmt.Errorf("chunk %d (iTXt %s): %w", n, MetadataKey, err)
			}
			found = text
		}
		if typ == "IEND" {
			break
		}
	}
	if found == nil {
		return Metadata{}, false, nil
	}
	if err := json.Unmarshal(found, &m); err != nil {
		return Metadata{}, false, fmt.Errorf("%s metadata: %w", MetadataKey, err)
	}
	return m, true, nil
}

// validChunkType reports whether t is four ASCII letters.
func validChunkType(t []byte) bool {
	for _, c := range t {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// parseITXt returns the (decompressed) UTF-8 text of an iTXt chunk.
func parseITXt(data []byte) ([]byte, error) {
	_, rest, ok := bytes.Cut(data, []byte{0}) // keyword
	if !ok || len(rest) < 2 {
		return nil, errors.New("truncated header")
	}
	compressed, method := rest[0], rest[1]
	rest = rest[2:]
	if _, rest, ok = bytes.Cut(rest, []byte{0}); !ok { // language tag
		return nil, errors.New("malformed language tag")
	}
	if _, rest, ok = bytes.Cut(rest, []byte{0}); !ok { // translated keyword
		return nil, errors.New("malformed translated keyword")
	}
	switch {
	case compressed == 0:
		return rest, nil
	case compressed == 1 && method == 0:
		zr, err := zlib.NewReader(bytes.NewReader(rest))
		if err != nil {
			return nil, fmt.Errorf("compressed text: %w", err)
		}
		defer zr.Close()
		text, err := io.ReadAll(io.LimitReader(zr, maxTextLen+1))
		if err != nil {
			return nil, fmt.Errorf("compressed text: %w", err)
		}
		if len(text) > maxTextLen {
			return nil, fmt.Errorf("compressed text inflates beyond %d bytes", maxTextLen)
		}
		return text, nil
	default:
		return nil, fmt.Errorf("unknown compression flag %d / method %d", compressed, method)
	}
}

// noEOF turns io.EOF into io.ErrUnexpectedEOF: inside a PNG any end of data is premature.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// SHA256File returns the hex SHA-256 of the file at path (to identify reference images).
func SHA256File(path string) (string, error) {
	f, _, err := safefile.OpenRegular(path, MaxFileBytes)
	if err != nil {
		return "", fmt.Errorf("hash: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
