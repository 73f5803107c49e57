// A pure function's answers for the arguments it saw last. Hot paths ask the same few keys again
// and again (a front routes each request by its account and inbox), so a map lookup replaces the
// work. Bounded: when full it starts over, so a flood of new arguments only empties it.

/** `compute` with its answers remembered; an answer must not be `undefined`. */
export function remembered<V>(compute: (key: string) => V, max: number): (key: string) => V {
  const answers = new Map<string, V>();
  return (key) => {
    let answer = answers.get(key);
    if (answer === undefined) {
      answer = compute(key);
      if (answers.size >= max) answers.clear();
      answers.set(key, answer);
    }
    return answer;
  };
}
