"""Operating the service (API.md "Operating the service"): the health checks a load balancer
asks (``health``), the Prometheus metrics (``metrics``), the JSON log lines (``logs``) and the
views that serve the first two (``views``)."""
