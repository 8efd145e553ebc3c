package cli

import (
	"bufio"
	"fmt"
	"image"
	"io"
	"path/filepath"
	"strings"

	"kleinbild/engine"
	"kleinbild/engine/imageio"
	"kleinbild/internal/atomicfile"
)

// imageFormats names the formats -o writes, by file name extension.
const imageFormats = ".png, .jpg or .jpeg"

// outputFormat is the format an output path asks for: "png" (also for "-" and a path
// without extension, such as a device or a pipe) or "jpeg"; anything else is an error that
// lists the formats, so that PNG bytes never land in a file named for another format.
func outputFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", "":
		return "png", nil
	case ".jpg", ".jpeg":
		return "jpeg", nil
	default:
		return "", fmt.Errorf("-o %s: cannot write %s images: use %s", path, ext, imageFormats)
	}
}

// encodeImage encodes img in format with its metadata: PNG text chunks (imageio.EncodePNG),
// or a JPEG at quality (1..100) with the AUTOMATIC1111 "parameters" text in a comment
// segment, which JPEG readers show and image tools parse.
func encodeImage(format string, img image.Image, meta imageio.Metadata, quality int) ([]byte, error) {
	if format == "png" {
		return imageio.EncodePNG(img, meta)
	}
	return imageio.EncodeJPEG(img, meta, quality)
}

// writeImage encodes img for path (see outputFormat) and writes it atomically.
func writeImage(path string, img image.Image, meta imageio.Metadata, quality int) error {
	format, err := outputFormat(path)
	if err != nil {
		return err
	}
	data, err := encodeImage(format, img, meta, quality)
	if err != nil {
		return err
	}
	return atomicfile.WriteOutput(path, func(w *bufio.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// requireDirOut names what is missing of the model (-d, or a component file) and -o.
func requireDirOut(haveModel bool, out string) error {
	switch {
	case !haveModel && out == "":
		return usageErr("-d MODEL_DIR and -o OUT.png are required")
	case !haveModel:
		return usageErr("-d MODEL_DIR is required")
	case out == "":
		return usageErr("-o OUT.png is required (- writes the image to standard output)")
	}
	return nil
}

// checkSide is the CLI's rule for -W/-H: a multiple of engine.SizeMultiple that the engine
// computes correctly (engine.CheckEngineSize); outside the range the model works well in
// (engine.CheckSize, the app's limits) it warns on stderr.
func checkSide(flag string, px int, stderr io.Writer) error {
	if err := engine.CheckEngineSize(px); err != nil {
		return usageErr("-%s: %v", flag, err)
	}
	if engine.CheckSize(px) != nil {
		fmt.Fprintf(stderr, "kleinbild: warning: -%s %d is outside %d..%d, where the model works best: expect lower quality\n", flag, px, engine.MinSidePx, engine.MaxSidePx)
	}
	return nil
}
