# Strategist server image: a static binary on a distroless base.
# The offline gene data is not baked in; docker-compose.yml mounts ./data
# (fill it with `make data`).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=docker
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/strategist ./cmd/server

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/strategist /usr/local/bin/strategist
ENV STRATEGIST_ADDR=0.0.0.0:8080 \
    STRATEGIST_DATA_DIR=/data
EXPOSE 8080
USER nonroot:nonroot
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["strategist", "healthcheck"]
ENTRYPOINT ["strategist"]
CMD ["serve"]
