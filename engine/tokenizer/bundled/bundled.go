// Package bundled holds the Qwen3 tokenizer files that Kleinbild ships inside its binary, so
// that a model assembled from single files (a GGUF or BFL transformer, a GGUF or ComfyUI text
// encoder) needs no tokenizer folder — as ComfyUI does.
//
// The files are the real Qwen3 tokenizer of FLUX.2-klein (the repository's tokenizer/ folder,
// identical to golden/tokenizer): tokenizer.json stored gzip-compressed (`gzip -9 -n`, 1.8 MB
// for 5.2 MB) and tokenizer_config.json as it is.
package bundled

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
)

// TokenizerSHA256 is the SHA-256 of the uncompressed tokenizer.json.
const TokenizerSHA256 = "84e77505d377c01f38c3eb4b00536ec539324082e8a34fee4a8881e6dd91d99f"

var (
	//go:embed tokenizer.json.gz
	tokenizerGz []byte
	//go:embed tokenizer_config.json
	tokenizerConfig []byte
)

// maxTokenizer bounds the decompressed size (the real file is 5.2 MB).
const maxTokenizer = 64 << 20

// TokenizerJSON returns the bundled tokenizer.json, decompressed into a new slice and checked
// against TokenizerSHA256.
func TokenizerJSON() ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tokenizerGz))
	if err != nil {
		return nil, fmt.Errorf("bundled tokenizer: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxTokenizer+1))
	if err != nil {
		return nil, fmt.Errorf("bundled tokenizer: %w", err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != TokenizerSHA256 || len(data) > maxTokenizer {
		return nil, fmt.Errorf("bundled tokenizer: tokenizer.json does not match its checksum")
	}
	return data, nil
}

// TokenizerConfigJSON returns the bundled tokenizer_config.json (a new slice).
func TokenizerConfigJSON() []byte { return bytes.Clone(tokenizerConfig) }
