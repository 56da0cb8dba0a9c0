// A stand-in worker for deploy tests: the real one is edge/worker/src/index.js.
export default {
  async fetch(request, env) {
    return env.ASSETS.fetch(request);
  },
};
