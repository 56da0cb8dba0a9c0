// A stand-in worker for deploy tests: the real one is edge/src/index.js.
export default {
  async fetch(request, env) {
    return env.ASSETS.fetch(request);
  },
};
