module github.com/worksteal/worksteal

go 1.26
