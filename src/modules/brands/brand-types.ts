/**
 * The types a brand may be created or edited with (the interface's list); older brands may carry
 * others (Artist). The service checks them and the REST document lists them from here.
 */
export const brandTypes = ['Music', 'Sport', 'Consumer', 'Movie', 'TV', 'Video Game', 'Influencer'] as const;
