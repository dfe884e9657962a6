import { declareNetwork } from '../../declaration.js';

/** iTunes (Apple Music): brands have artist pages there; members have no identities on it. */
export const itunes = declareNetwork({
  id: 'itunes',
  name: 'iTunes',
  brand: {
    read(host, path) {
      if (!['itunes.apple.com', 'music.apple.com', 'geo.music.apple.com'].includes(host)) return undefined;
      // itunes.apple.com/us/artist/adele/id262836961, music.apple.com/gb/artist/adele/262836961
      if (!path.includes('artist')) return undefined;
      const id = /^(?:id)?(\d+)$/.exec(path[path.length - 1] ?? '')?.[1];
      return id ? { id } : undefined;
    },
  },
});
