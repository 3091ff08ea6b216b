"""citegen inside other serving engines. `citegen.integrations.vllm` is the citation constraint as a
vLLM v1 logits processor; it and `vllm_source` import vllm, which only the `citegen[vllm]` extra
installs, so nothing here is imported by the rest of citegen."""
