module envfix/fynelocale

go 1.26.0
