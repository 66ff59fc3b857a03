module strata.test/gohbase

go 1.22

require (
	github.com/sirupsen/logrus v1.5.0
	github.com/tsuna/gohbase v0.0.0-20201125011725-348991136365
)

require (
	github.com/go-zookeeper/zk v1.0.2 // indirect
	github.com/golang/protobuf v1.4.0 // indirect
	github.com/golang/snappy v0.0.1 // indirect
	github.com/konsorten/go-windows-terminal-sequences v1.0.1 // indirect
	golang.org/x/sys v0.0.0-20190422165155-953cdadca894 // indirect
	google.golang.org/protobuf v1.21.0 // indirect
	modernc.org/b v1.0.0 // indirect
)
