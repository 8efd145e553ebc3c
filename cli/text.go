package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"kleinbild/engine"
	"kleinbild/engine/qwen3"
	"kleinbild/engine/tokenizer"
	"kleinbild/internal/atomicfile"
	"kleinbild/weights"
)

// runTokens: kleinbild tokens -d MODEL -p PROMPT
// prints {"input_ids": [...], "attention_mask": [...]} (512 each).
func runTokens(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("tokens", stderr)
	dir := fs.String("d", "", "model: a folder with tokenizer/, a ComfyUI models folder or a model file (these use the bundled Qwen3 tokenizer)")
	prompt := fs.String("p", "", "prompt (- reads it from standard input)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usageErr("-d MODEL_DIR is required")
	}
	if !flagSet(fs, "p") {
		return usageErr("-p PROMPT is required")
	}
	if err := stdinPrompt(prompt); err != nil {
		return err
	}
	if err := checkPromptText(*prompt, false, stderr); err != nil {
		return err
	}
	tok, err := tokensTokenizer(*dir)
	if err != nil {
		return err
	}
	ids, mask := tok.EncodeChat(*prompt, tokenizer.MaxLength)
	out, err := json.Marshal(struct {
		InputIDs      []int `json:"input_ids"`
		AttentionMask []int `json:"attention_mask"`
	}{ids, mask})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

// tokensTokenizer is the tokenizer of the model dir names: its tokenizer/ folder when it has
// one (only that folder is read), else that of the model source -d opens, which for single
// files and ComfyUI folders is the bundled Qwen3 tokenizer.
func tokensTokenizer(dir string) (*tokenizer.Tokenizer, error) {
	if st, err := os.Stat(filepath.Join(dir, "tokenizer")); err == nil && st.IsDir() {
		return tokenizer.Load(filepath.Join(dir, "tokenizer"))
	}
	src, err := engine.OpenModelSource(dir, engine.Overrides{})
	if err != nil {
		return nil, err
	}
	return src.Tokenizer()
}

// runEncode: kleinbild encode -d MODEL_DIR -p PROMPT -o emb.safetensors [--backend ID]
// writes tensor prompt_embeds float32 [1, 512, 3·hidden].
func runEncode(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("encode", stderr)
	dir := fs.String("d", "", "model: a diffusers folder (with tokenizer/ and text_encoder/), a ComfyUI models folder")
	modelArgs := addModelFlags(fs, dir, "variant")
	prompt := fs.String("p", "", "prompt (- reads it from standard input)")
	out := fs.String("o", "", "output .safetensors file")
	quiet := fs.Bool("q", false, "print nothing on success")
	loras := addLoRAFlags(fs)
	backend := backendFlag(fs, "")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if !modelArgs.given() || *out == "" {
		return usageErr("-d MODEL_DIR and -o OUT.safetensors are required")
	}
	if err := atomicfile.CheckOutput(*out, append(modelArgs.files(), loras.files()...)...); err != nil {
		return err
	}
	if err := checkTensorOutput(*out); err != nil {
		return err
	}
	if err := stdinPrompt(prompt); err != nil {
		return err
	}
	if err := checkPromptText(*prompt, *quiet, stderr); err != nil {
		return err
	}
	b, err := openBackend(*backend)
	if err != nil {
		return err
	}
	defer b.Close()
	ctx, stop := interruptContext()
	defer stop()
	tok, enc, err := modelArgs.encoder(b)
	if err != nil {
		return err
	}
	defer enc.Close()
	if err := setEncoderAdapters(enc, loras, stderr); err != nil {
		return err
	}
	ids, mask := tok.EncodeChat(*prompt, tokenizer.MaxLength)
	emb, err := enc.Encode(ctx, ids, mask, qwen3.DefaultLayers, nil)
	if err != nil {
		return err
	}
	width := len(emb) / len(ids)
	err = weights.WriteFile(*out, []weights.OutTensor{{Name: "prompt_embeds", Shape: []int{1, len(ids), width}, F32: emb}},
		map[string]string{"prompt": *prompt, "format": "pt"})
	if err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(infoWriter(*out, stdout, stderr), "wrote %s: prompt_embeds [1, %d, %d]\n", *out, len(ids), width)
	}
	return nil
}

// checkTensorOutput refuses an encode output not named .safetensors (an existing pic.png would
// get safetensors bytes), unless it is a pipe or device such as /dev/stdout.
func checkTensorOutput(out string) error {
	if strings.EqualFold(filepath.Ext(out), ".safetensors") {
		return nil
	}
	if st, err := os.Stat(out); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return nil
	}
	return usageErr("-o %s: encode writes a .safetensors file; name the output NAME.safetensors", out)
}

// checkPromptText applies generate's prompt rule (engine.ValidatePrompt: its length) to the
// prompt of tokens and encode, a usage error, and warns on stderr (unless quiet) when the
// prompt is empty or blank: the model then follows no text.
func checkPromptText(prompt string, quiet bool, stderr io.Writer) error {
	if err := engine.ValidatePrompt(prompt); err != nil {
		return usageErr("-p: %v", err)
	}
	if strings.TrimSpace(prompt) == "" && !quiet {
		fmt.Fprintln(stderr, "warning: the prompt is empty: the result follows no text")
	}
	return nil
}

// stdinPrompt replaces a prompt of "-" by standard input (as generate -p - does).
func stdinPrompt(prompt *string) error {
	if *prompt != "-" {
		return nil
	}
	p, err := readPrompt(stdin)
	if err != nil {
		return err
	}
	*prompt = p
	return nil
}
