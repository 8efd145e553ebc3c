module kleinbild

go 1.26.0

require (
	github.com/x448/float16 v0.8.4
	gonum.org/v1/gonum v0.17.0
)
