# Multi-stage build: pg_query_go needs cgo, so the binary is built with the Go
# toolchain's gcc and run on a slim Debian of the same release (same glibc).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -trimpath -ldflags "-s -w" -o /out/fickle ./cmd/fickle

FROM debian:bookworm-slim
COPY --from=build /out/fickle /usr/local/bin/fickle
USER nobody
EXPOSE 5432
ENTRYPOINT ["/usr/local/bin/fickle"]
CMD ["serve", "--listen", "0.0.0.0:5432"]
