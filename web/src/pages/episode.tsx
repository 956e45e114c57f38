/** One episode (being built). */
export default function EpisodePage({ id }: { id: string }) {
  return <h1>Episode {id}</h1>;
}
